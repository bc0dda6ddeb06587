package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

// buildBinary builds cmd/harvester into the test's temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "harvester")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// startWorker runs `harvester worker` in its own process until the test ends.
func startWorker(t *testing.T, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"worker"}, args...)...)
	cmd.Env = append(os.Environ(), "DATABASE_URL=", "NATS_URL=")
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
}

// handledCount reads, from a worker's /metrics, how many messages its handlers of stage ran.
func handledCount(t *testing.T, addr, stage string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	n := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "harvester_stage_handler_duration_seconds_count{") &&
			strings.Contains(line, `stage="`+stage+`"`) {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			require.NoError(t, err)
			n += int(v)
		}
	}
	return n
}

func TestStagesInSeparateProcessesMatchOneProcess(t *testing.T) {
	t.Parallel()
	file := corpustest.Path(t, "dcatus/agency-va-2025-07.data.json")

	// The single-process reference run.
	want := runJSON(t, "harvest", "--file", file, "--schema-type", federal,
		"--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t))
	require.Equal(t, "complete", want.Status)

	// The same job with every stage in processes of its own, validate in two.
	bin := buildBinary(t)
	dbURL, natsURL := dbtest.URL(t), natstest.URL(t)
	common := []string{"--database-url", dbURL, "--nats-url", natsURL, "--log-level", "error", "--data-dir", t.TempDir(),
		"--local-files"} // the source is a file
	validateAddrs := []string{freeAddr(t), freeAddr(t)}
	for _, addr := range validateAddrs {
		startWorker(t, bin, append([]string{"--stages", "validate", "--addr", addr}, common...)...)
	}
	for _, stage := range []string{"extract", "compare", "listing", "transform", "sync", "report"} {
		startWorker(t, bin, append([]string{"--stages", stage}, common...)...)
	}

	ctx := context.Background()
	st, err := postgres.Open(ctx, dbURL)
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.Migrate(ctx))
	bus, err := router.Connect(ctx, natsURL)
	require.NoError(t, err)
	defer bus.Close()
	job, err := jobs.Control{Store: st, Publisher: bus.Publisher()}.Start(ctx, jobs.Params{URL: file, SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	job, err = jobs.Wait(wctx, st, job.ID, 50*time.Millisecond)
	require.NoError(t, err)

	var out strings.Builder
	require.NoError(t, printReport(ctx, &out, st, job, file, "json"))
	got := runJSONText(t, out.String())
	require.Equal(t, comparable(want), comparable(got))

	// Both validate workers took a share, and together they validated each record once.
	a, b := handledCount(t, validateAddrs[0], "validate"), handledCount(t, validateAddrs[1], "validate")
	require.Positive(t, a, "first validate worker handled messages")
	require.Positive(t, b, "second validate worker handled messages")
	records, _, err := st.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: job.ID,
		PageParams: store.PageParams{Limit: 10000}})
	require.NoError(t, err)
	dups := 0
	for _, e := range records {
		if e.Type == "DuplicateIdentifier" {
			dups++
		}
	}
	require.Equal(t, got.Total-dups, a+b, fmt.Sprintf("each keyed record validated once (%d + %d)", a, b))
}
