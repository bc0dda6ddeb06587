package setupstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/search/searchtest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

// composeCommands returns the harvester commands of deploy/compose.yaml by service name: the
// api, the scheduler and every worker-* service, as the file gives them.
func composeCommands(t *testing.T) map[string][]string {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{"../deploy/compose.yaml"}, cli.WithWorkingDirectory("../deploy"),
		cli.WithEnv([]string{"HARVESTER_API_KEY=k"}))
	require.NoError(t, err)
	p, err := opts.LoadProject(context.Background())
	require.NoError(t, err)
	out := map[string][]string{}
	for name, s := range p.Services {
		if name == "api" || name == "scheduler" || strings.HasPrefix(name, "worker-") {
			out[name] = slices.Clone(s.Command)
		}
	}
	require.Contains(t, out, "api")
	require.Contains(t, out, "scheduler")
	return out
}

// harvesterProcess is one harvester process of the test, listening at addr.
type harvesterProcess struct {
	name, addr, log string
	cmd             *exec.Cmd
	exited          chan struct{}
}

// startHarvester starts `harvester args…` with env, its --addr and --ops-addr (if any) moved
// to free loopback ports (compose's fixed ports would collide with a parallel run); it is
// stopped (SIGTERM, then SIGKILL) at cleanup.
func startHarvester(t *testing.T, bin, name string, args, env []string) *harvesterProcess {
	t.Helper()
	p := &harvesterProcess{name: name, log: filepath.Join(t.TempDir(), name+".log"), exited: make(chan struct{})}
	args = slices.Clone(args)
	for i, a := range args {
		if a == "--addr" && i+1 < len(args) {
			p.addr = freeAddr(t)
			args[i+1] = p.addr
		}
		if a == "--ops-addr" && i+1 < len(args) {
			args[i+1] = freeAddr(t)
		}
	}
	logf, err := os.Create(p.log)
	require.NoError(t, err)
	defer logf.Close()
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	require.NoError(t, p.cmd.Start())
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(20 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			b, _ := os.ReadFile(p.log)
			t.Logf("--- log of %s (%s), last 3 KB:\n%s", p.name, strings.Join(args, " "), b[max(0, len(b)-3<<10):])
		}
	})
	return p
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// waitReady returns once every process answers /readyz with 200. A process that exits first
// fails the test with its log.
func waitReady(t *testing.T, procs []*harvesterProcess) {
	t.Helper()
	client := http.Client{Timeout: 5 * time.Second}
	for _, p := range procs {
		for deadline := time.Now().Add(failsafe); ; {
			select {
			case <-p.exited:
				b, _ := os.ReadFile(p.log)
				t.Fatalf("%s exited before it was ready: %s", p.name, b)
			default:
			}
			resp, err := client.Get("http://" + p.addr + "/readyz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			require.True(t, time.Now().Before(deadline), "%s not ready after %s", p.name, failsafe)
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// api calls the API at addr with the key; it fails the test unless the status is want, and
// decodes the answer into v (when not nil).
func api(t *testing.T, addr, method, path string, body any, want int, v any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, "http://"+addr+path, rd)
	require.NoError(t, err)
	req.Header.Set("X-API-Key", apiKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, want, resp.StatusCode, "%s %s: %s", method, path, b)
	if v != nil {
		require.NoError(t, json.Unmarshal(b, v), "%s %s: %s", method, path, b)
	}
}

const apiKey = "compose-test-key"

// TestComposeProcessesOnEmptyServices: the processes deploy/compose.yaml starts (api, scheduler,
// one worker per stage group), started at once as plain processes on a fresh Postgres schema,
// a fresh nats-server and an OpenSearch alias that does not exist yet, as on a deployment's
// first start: each creates what it needs at the same moment as the others (migrations,
// streams and consumers, the search index). A source created and a job queued through the API
// then harvests DOL's data.json (453 records, some with a temporal field) to exact counts, and
// every dataset is in the index and found by the API's search.
func TestComposeProcessesOnEmptyServices(t *testing.T) {
	t.Parallel()
	osURL := searchtest.OpenSearchURL(t)
	dbURL := dbtest.URL(t)
	natsURL := natsServerURL(t)
	commands := composeCommands(t)
	bin := filepath.Join(t.TempDir(), "harvester")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/harvester").CombinedOutput()
	require.NoError(t, err, string(out))
	alias := "compose-" + strings.ReplaceAll(uuid.NewString(), "-", "")
	t.Cleanup(func() { dropAlias(osURL, alias) })
	agency := corpustest.NewServer(t)
	agency.Serve(corpustest.Path(t, "dcatus/agency-dol-2025-07.data.json"))

	env := append(os.Environ(), "DATABASE_URL="+dbURL, "NATS_URL="+natsURL, "OPENSEARCH_URL="+osURL,
		"HARVESTER_SEARCH_INDEX="+alias, "HARVESTER_STREAM_REPLICAS=1", "HARVESTER_API_KEY="+apiKey,
		"HARVESTER_ALLOW_PRIVATE_SOURCES=1", "HARVESTER_DATA_DIR="+t.TempDir())
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range commands {
			if !yield(name) {
				return
			}
		}
	})
	var procs []*harvesterProcess
	for _, name := range names { // at once: no process waits for another
		procs = append(procs, startHarvester(t, bin, name, commands[name], env))
	}
	t.Logf("started %s", strings.Join(names, ", "))
	waitReady(t, procs)
	apiAddr := procs[slices.Index(names, "api")].addr

	var src struct{ ID string }
	api(t, apiAddr, "POST", "/api/v1/harvest_sources", map[string]any{"name": "DOL data.json", "url": agency.URL(),
		"source_type": "document", "schema_type": string(harvest.SchemaDCATUS11Federal)}, http.StatusCreated, &src)
	var job struct {
		ID, Status string
		harvest.Counts
		Error *string
	}
	api(t, apiAddr, "POST", "/api/v1/harvest_sources/"+src.ID+"/jobs", nil, http.StatusAccepted, &job)
	for deadline := time.Now().Add(failsafe); job.Status != "complete" && job.Status != "error"; {
		require.True(t, time.Now().Before(deadline), "job %s not finished after %s: %+v", job.ID, failsafe, job)
		time.Sleep(200 * time.Millisecond)
		api(t, apiAddr, "GET", "/api/v1/harvest_jobs/"+job.ID, nil, http.StatusOK, &job)
	}
	require.Equal(t, "complete", job.Status, "job error: %v", job.Error)
	require.Equal(t, harvest.Counts{Total: 453, Added: 453, Validated: 453}, job.Counts)

	st, err := postgres.Open(context.Background(), dbURL)
	require.NoError(t, err)
	defer st.Close()
	ds, err := st.DatasetList(context.Background(), &store.DatasetListParams{SourceID: src.ID})
	require.NoError(t, err)
	require.Len(t, ds, 453)
	idx, err := opensearch.Open(context.Background(), osURL, alias)
	require.NoError(t, err)
	require.NoError(t, idx.Refresh(context.Background()))
	live, indexed := map[string]string{}, map[string]string{}
	for _, d := range ds {
		live[d.ID] = d.RecordID
	}
	require.NoError(t, idx.Scan(context.Background(), src.ID, func(e search.Entry) error {
		indexed[e.ID] = e.RecordID
		return nil
	}))
	require.Equal(t, live, indexed, "every dataset in the index, at its record")
	var found struct{ Total int }
	api(t, apiAddr, "GET", fmt.Sprintf("/api/v1/search?source_id=%s&per_page=1", src.ID), nil, http.StatusOK, &found)
	require.Equal(t, 453, found.Total, "the API's search finds every dataset of the source")
}

// dropAlias deletes every index behind alias at the OpenSearch node at url, whatever state the
// processes left it in (an alias on two indices included); errors are ignored.
func dropAlias(url, alias string) {
	resp, err := http.Get(url + "/_alias/" + alias)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	var indices map[string]any
	if json.NewDecoder(resp.Body).Decode(&indices) != nil {
		return
	}
	for name := range indices {
		req, err := http.NewRequest(http.MethodDelete, url+"/"+name, nil)
		if err != nil {
			continue
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
}
