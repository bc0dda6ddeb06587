package deploy_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd, args string
	line      int
}

// stage is one FROM … and the instructions after it.
type stage struct {
	from, name string
	body       []instruction
}

// parseDockerfile splits a Dockerfile into its build stages. It knows only what the checks
// below need: comments, line continuations, and FROM image [AS name].
func parseDockerfile(t *testing.T, path string) []stage {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var (
		stages []stage
		cur    strings.Builder
		start  int
	)
	lines := strings.Split(string(raw), "\n")
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		text := cur.String()
		cur.Reset()
		cmd, args, _ := strings.Cut(text, " ")
		in := instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args), line: start}
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			st := stage{from: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.name = f[2]
			}
			stages = append(stages, st)
			continue
		}
		require.NotEmpty(t, stages, "line %d: %s before the first FROM", in.line, in.cmd)
		stages[len(stages)-1].body = append(stages[len(stages)-1].body, in)
	}
	require.Empty(t, cur.String(), "the Dockerfile ends in a line continuation")
	return stages
}

func (s stage) all(cmd string) []instruction {
	var out []instruction
	for _, in := range s.body {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// The Dockerfile builds a static binary with the Go of go.mod in one stage and runs it as a
// non-root user on a distroless (or scratch) image in the last, with the data directory as a
// volume so that the root filesystem may be read-only.
func TestDockerfile(t *testing.T) {
	stages := parseDockerfile(t, "../Dockerfile")
	require.GreaterOrEqual(t, len(stages), 2, "multi-stage: a build stage and a runtime stage")

	build := stages[0]
	gomod, err := os.ReadFile("../go.mod")
	require.NoError(t, err)
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	require.NotNil(t, goVersion, "go.mod has a go line")
	require.True(t, strings.HasPrefix(build.from, "golang:"+string(goVersion[1])),
		"the build stage uses go.mod's Go %s, not %s", goVersion[1], build.from)
	require.NotEmpty(t, build.name, "the build stage is named (FROM … AS name)")
	var built bool
	for _, run := range build.all("RUN") {
		if strings.Contains(run.args, "go build") {
			require.Contains(t, run.args, "CGO_ENABLED=0", "line %d: a static binary", run.line)
			require.Contains(t, run.args, "./cmd/harvester", "line %d", run.line)
			built = true
		}
	}
	require.True(t, built, "the build stage runs go build")

	final := stages[len(stages)-1]
	require.Regexp(t, `^(gcr\.io/distroless/static(-debian\d+)?(:[\w.-]+)?|scratch)$`, final.from,
		"the runtime image is distroless/static or scratch")
	require.Empty(t, final.all("RUN"), "the runtime image has no shell: nothing may RUN there")
	users := final.all("USER")
	require.NotEmpty(t, users, "the runtime stage sets USER")
	user := users[len(users)-1].args
	uid, _, _ := strings.Cut(user, ":")
	n, err := strconv.Atoi(uid)
	require.NoError(t, err, "USER %q is numeric (runAsNonRoot needs a numeric uid)", user)
	require.NotZero(t, n, "USER is not root")

	var copied bool
	for _, c := range final.all("COPY") {
		copied = copied || strings.Contains(c.args, "--from="+build.name) && strings.Contains(c.args, "/harvester")
	}
	require.True(t, copied, "the runtime stage copies the binary from the build stage")
	entry := final.all("ENTRYPOINT")
	require.NotEmpty(t, entry)
	require.Equal(t, `["/harvester"]`, entry[len(entry)-1].args)

	var dataDir string
	for _, e := range final.all("ENV") {
		if m := regexp.MustCompile(`HARVESTER_DATA_DIR=(\S+)`).FindStringSubmatch(e.args); m != nil {
			dataDir = m[1]
		}
	}
	require.NotEmpty(t, dataDir, "the runtime stage sets HARVESTER_DATA_DIR")
	var volume bool
	for _, v := range final.all("VOLUME") {
		volume = volume || strings.Contains(v.args, `"`+dataDir+`"`)
	}
	require.True(t, volume, "HARVESTER_DATA_DIR %s is a VOLUME", dataDir)
}
