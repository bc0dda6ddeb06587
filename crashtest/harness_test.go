package crashtest

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

var (
	// bin is the harvester binary built once for the package.
	bin string
	// seed makes every random choice of the run; printed, and set by HARVESTER_CRASH_SEED.
	seed uint64
)

// Timing of the processes under test: a job that makes no progress for orphanTimeout is
// re-driven from Postgres, at most maxRedrives times. The timeout is short to keep the tests
// quick; on a loaded machine a healthy job may pause that long and be re-driven for nothing,
// which is harmless, hence the generous bound (scheduler's own tests pin the bound).
const (
	orphanTimeout = "2s"
	maxRedrives   = "10"
	// jobStall is how long a job of a run may go without progress (no outcome settled, no
	// re-drive, no change of status), crash and convergence included, before the test fails:
	// the budget follows the job's progress, not the wall clock, so a loaded machine that is
	// slow but moving never fails a run.
	jobStall = 5 * time.Minute
	// failsafe bounds a wait that only a hung server or job exceeds (a nats-server starting,
	// a cluster job on a loaded machine): long, so that it never decides a healthy run.
	failsafe = 30 * time.Minute
)

func TestMain(m *testing.M) {
	flag.Parse()
	seed = uint64(time.Now().UnixNano())
	if s := os.Getenv("HARVESTER_CRASH_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "HARVESTER_CRASH_SEED=%q: want an unsigned integer\n", s)
			os.Exit(2)
		}
		seed = n
	}
	fmt.Printf("crash tests: seed %d (HARVESTER_CRASH_SEED=%d reproduces the kill points)\n", seed, seed)
	dir, err := os.MkdirTemp("", "harvester-crash-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "harvester")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/harvester").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build harvester: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// rng returns the random source of one test: the run's seed and the test's name, so a test
// draws the same kill points whichever other tests run.
func rng(t *testing.T) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// runs is how many times each scenario runs: 5 in CI, 20 with HARVESTER_LONG_TESTS=1.
func runs() int {
	if os.Getenv("HARVESTER_LONG_TESTS") != "" {
		return 20
	}
	return 5
}

// proc is one harvester process.
type proc struct {
	name string
	args []string
	env  []string
	log  string

	mu  sync.Mutex
	cmd *exec.Cmd
}

func (p *proc) start(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	logf, err := os.OpenFile(p.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	defer logf.Close()
	fmt.Fprintf(logf, "--- start %s %s\n", p.name, strings.Join(p.args, " "))
	p.cmd = exec.Command(bin, p.args...)
	p.cmd.Env = p.env
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	require.NoError(t, p.cmd.Start())
}

// kill ends the process with SIGKILL: no handler finishes, nothing is acked or released.
func (p *proc) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_ = p.cmd.Wait()
	p.cmd = nil
}

// cluster is one harvester installation under test: a fresh Postgres schema, its own
// nats-server, harvester processes, and an agency web server with one harvest source.
type cluster struct {
	t     *testing.T
	st    store.Store
	nats  *natsServer
	nodes []*natsServer // the nodes of a JetStream cluster (nats is nil then)
	// replicas is the --stream-replicas of the processes.
	replicas int
	// orphanTimeout and stall are the processes' --orphan-timeout and how long a job may go
	// without progress, crash included, before the test fails (jobStall).
	orphanTimeout string
	stall         time.Duration
	env           []string
	procs         map[string]*proc
	server        *corpustest.Server
	src           *store.Source
	dir           string
	// idx is the OpenSearch index the processes share (HARVESTER_TEST_OPENSEARCH_URL), checked
	// against the live catalog; nil without a node, and the processes then keep no index
	// (several processes cannot share the embedded bleve index).
	idx *opensearch.Index
}

// newCluster starts an installation on a fresh schema of the test Postgres
// (HARVESTER_TEST_DATABASE_URL), or on the database at dbURL when given.
func newCluster(t *testing.T, dbURL ...string) *cluster {
	t.Helper()
	var url string
	if len(dbURL) > 0 {
		url = dbURL[0]
	} else {
		url = dbtest.URL(t)
	}
	c := &cluster{t: t, nats: startNATS(t), replicas: 1, orphanTimeout: orphanTimeout, stall: jobStall}
	c.open(url)
	return c
}

// newReplicatedCluster starts an installation on a fresh schema of the test Postgres and a
// 3-node JetStream cluster (deploy/nats), whose processes keep every stream on all three
// nodes (--stream-replicas 3) and connect with the three nodes' URLs.
func newReplicatedCluster(t *testing.T) *cluster {
	t.Helper()
	c := &cluster{t: t, nodes: startNATSCluster(t), replicas: 3,
		// A node's death stops a stream until its replicas elect a leader: seconds, more on
		// a loaded machine. A job that waits that long is not orphaned.
		orphanTimeout: "30s", stall: failsafe}
	c.open(dbtest.URL(t))
	if c.idx == nil && os.Getenv("HARVESTER_TEST_REQUIRE_OPENSEARCH") != "" {
		t.Fatal("HARVESTER_TEST_REQUIRE_OPENSEARCH is set but HARVESTER_TEST_OPENSEARCH_URL is not: " +
			"the cluster crash tests check the search index against the live catalog on OpenSearch")
	}
	return c
}

// natsURL is the NATS URL the i-th process is given: the one server, or every node of the
// cluster, the list rotated by i (the client picks among them at random and moves to another
// when its node goes away).
func (c *cluster) natsURL(i int) string {
	if c.nats != nil {
		return c.nats.URL()
	}
	urls := make([]string, len(c.nodes))
	for j := range c.nodes {
		urls[j] = c.nodes[(i+j)%len(c.nodes)].URL()
	}
	return strings.Join(urls, ",")
}

// open opens the store at url, creates the streams and the harvest source.
func (c *cluster) open(url string) {
	t := c.t
	t.Helper()
	st, err := postgres.Open(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(context.Background()))
	c.st, c.procs, c.server, c.dir = st, map[string]*proc{}, corpustest.NewServer(t), t.TempDir()
	// Create the streams before the processes start, so that they do not all create them at
	// once on a fresh server: Debian's nats-server 2.9.10 once panicked (a nil dereference in
	// its JetStream API import) under that burst, which is not what these tests are about.
	bus, err := router.Connect(context.Background(), c.natsURL(0), router.WithStreamReplicas(c.replicas))
	// A node of a cluster just started may still be offline to the others' meta group, which
	// then places no replicated stream ("no suitable peers for placement, peer offline", seen
	// once on a loaded machine): wait until it has joined.
	for deadline := time.Now().Add(failsafe); err != nil && strings.Contains(err.Error(), "no suitable peers") &&
		time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		bus, err = router.Connect(context.Background(), c.natsURL(0), router.WithStreamReplicas(c.replicas))
	}
	require.NoError(t, err)
	bus.Close()
	c.env = append(os.Environ(), "DATABASE_URL="+url, "HARVESTER_STREAM_REPLICAS="+strconv.Itoa(c.replicas),
		"HARVESTER_ALLOW_PRIVATE_SOURCES=1", "HARVESTER_DATA_DIR="+c.dir)
	if osURL := os.Getenv("HARVESTER_TEST_OPENSEARCH_URL"); osURL != "" {
		alias := "crash-" + strings.ReplaceAll(uuid.NewString(), "-", "")
		c.idx, err = opensearch.Open(context.Background(), osURL, alias)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.idx.Drop(context.Background()) })
		c.env = append(c.env, "OPENSEARCH_URL="+osURL, "HARVESTER_SEARCH_INDEX="+alias)
	} else {
		c.env = append(c.env, "OPENSEARCH_URL=", "HARVESTER_SEARCH_INDEX=none")
	}
	c.src, err = c.st.SourceInsert(context.Background(), &store.SourceInsertParams{Name: "crash test source",
		URL: c.server.URL(), SourceType: harvest.SourceDocument, SchemaType: schemaType})
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, p := range c.procs {
			p.kill()
		}
		if t.Failed() {
			c.dumpLogs()
		}
	})
}

// start runs a harvester process named name: `harvester args… --orphan-timeout … `.
func (c *cluster) start(name string, args ...string) *proc {
	c.t.Helper()
	args = append(args, "--orphan-timeout", c.orphanTimeout, "--max-redrives", maxRedrives,
		"--scheduler-interval", "200ms", "--log-level", "warn")
	env := append(slices.Clip(c.env), "NATS_URL="+c.natsURL(len(c.procs)))
	p := &proc{name: name, args: args, env: env, log: filepath.Join(c.dir, name+".log")}
	c.procs[name] = p
	p.start(c.t)
	return p
}

func (c *cluster) dumpLogs() {
	for name, p := range c.procs {
		b, _ := os.ReadFile(p.log)
		c.t.Logf("--- log of %s (last 4 KB):\n%s", name, tail(b, 4<<10))
	}
	for _, n := range append([]*natsServer{c.nats}, c.nodes...) {
		if n != nil {
			c.dumpNATSLog(n)
		}
	}
}

func (c *cluster) dumpNATSLog(n *natsServer) {
	b, _ := os.ReadFile(n.log)
	var notable []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "[ERR]") || strings.Contains(line, "[FTL]") || strings.Contains(line, "[WRN]") ||
			strings.Contains(line, "panic") || strings.Contains(line, "Starting nats-server") {
			notable = append(notable, line)
		}
	}
	c.t.Logf("--- nats-server %s log, errors and warnings (last 40):\n%s", n.name, strings.Join(notable[max(0, len(notable)-40):], "\n"))
	c.t.Logf("--- nats-server %s log (last 2 KB):\n%s", n.name, tail(b, 2<<10))
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// serve makes the agency server answer with doc.
func (c *cluster) serve(doc []byte) {
	c.t.Helper()
	path := filepath.Join(c.t.TempDir(), "data.json")
	require.NoError(c.t, os.WriteFile(path, doc, 0o644))
	c.server.Serve(path)
}

// queue queues a harvest job of the source; a scheduler process starts it.
func (c *cluster) queue() *store.HarvestJob {
	c.t.Helper()
	job, err := jobs.Control{Store: c.st}.Enqueue(context.Background(), c.src.ID, harvest.JobHarvest)
	require.NoError(c.t, err)
	return job
}

// waitSettled returns once the job is in progress with at least n outcomes settled, or has
// finished. Polling here only picks the kill point; it asserts nothing.
func (c *cluster) waitSettled(jobID string, n int) {
	c.t.Helper()
	c.follow(jobID, "reach "+strconv.Itoa(n)+" settled outcomes", func(j *store.HarvestJob) bool {
		return j.Status.Finished() || (j.Status == harvest.JobInProgress && j.Settled >= n)
	})
}

// wait returns the job once it has finished.
func (c *cluster) wait(jobID string) *store.HarvestJob {
	c.t.Helper()
	return c.follow(jobID, "finish", func(j *store.HarvestJob) bool { return j.Status.Finished() })
}

// follow polls the job until done holds and returns it. The test fails only when the job goes
// c.stall without progress (progress: its status, settled count, expected count or
// re-drives change) or failsafe in all: a wait on the job, not on the wall clock.
func (c *cluster) follow(jobID, what string, done func(*store.HarvestJob) bool) *store.HarvestJob {
	c.t.Helper()
	type progress struct {
		status                      harvest.JobStatus
		settled, redrives, expected int
		expectedKnown               bool
	}
	var last progress
	moved, giveUp := time.Now(), time.Now().Add(failsafe)
	for {
		j, err := c.st.JobGet(context.Background(), jobID)
		if err == nil {
			if done(j) {
				return j
			}
			p := progress{status: j.Status, settled: j.Settled, redrives: j.Redrives}
			if j.Expected != nil {
				p.expected, p.expectedKnown = *j.Expected, true
			}
			if p != last {
				last, moved = p, time.Now()
			}
		}
		require.True(c.t, time.Since(moved) < c.stall && time.Now().Before(giveUp),
			"job %s did not %s: no progress for %s (last %+v, error %v)", jobID, what, c.stall, last, err)
		time.Sleep(20 * time.Millisecond)
	}
}

// check asserts that the finished job has exactly the counts of an uninterrupted run, and
// that the live catalog holds exactly the expected datasets, each once.
func (c *cluster) check(job *store.HarvestJob, want expectation) {
	c.t.Helper()
	ctx := context.Background()
	errs, err := c.st.JobErrorList(ctx, job.ID)
	require.NoError(c.t, err)
	c.t.Logf("job %s: %s, re-driven %d times", job.ID, job.Status, job.Redrives)
	require.Equal(c.t, harvest.JobComplete, job.Status, "job errors: %v", jobErrorText(errs))
	require.Equal(c.t, want.counts, job.Counts, "counts of job %s (re-driven %d times)", job.ID, job.Redrives)
	require.Equal(c.t, want.counts.Total, job.Settled)
	require.NotNil(c.t, job.Expected)
	require.Equal(c.t, want.counts.Total, *job.Expected)
	c.checkLive(want.live)
}

// checkLive asserts that the live catalog holds exactly the datasets want, each once.
func (c *cluster) checkLive(want []string) {
	c.t.Helper()
	live, err := c.st.DatasetList(context.Background(), &store.DatasetListParams{SourceID: c.src.ID})
	require.NoError(c.t, err)
	got := make([]string, 0, len(live))
	for _, d := range live {
		got = append(got, d.Identifier)
	}
	require.Equal(c.t, want, got, "the live catalog: no dataset lost, duplicated or left behind")
	if c.idx != nil {
		require.NoError(c.t, c.idx.Refresh(context.Background()))
		r, err := search.Reconcile(context.Background(), c.st, c.idx, c.src.ID, false)
		require.NoError(c.t, err)
		require.True(c.t, r.Clean(), "the search index matches the live catalog: missing %v, stale %v, orphaned %v",
			r.Missing, r.Stale, r.Orphaned)
	}
}

// waitConverged waits for a job that may end either way and checks what any end must give:
// complete with counts that add up, or error with a job error that says why.
func (c *cluster) waitConverged(jobID string) *store.HarvestJob {
	c.t.Helper()
	j := c.wait(jobID)
	errs, err := c.st.JobErrorList(context.Background(), jobID)
	require.NoError(c.t, err)
	if j.Status == harvest.JobError {
		require.NotEmpty(c.t, errs, "a failed job says why")
		return j
	}
	require.Equal(c.t, j.Total, j.Added+j.Updated+j.Deleted+j.Unchanged+j.Errored, "counts add up: %+v", j.Counts)
	require.Equal(c.t, j.Total, *j.Expected)
	return j
}

func jobErrorText(errs []*store.JobError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Type+": "+e.Message)
	}
	return out
}
