package crashtest

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// ciRecords is the size of a scenario's catalog in CI: small enough for 5 runs of every
// scenario in a few minutes, large enough that kills land mid-listing and mid-stages.
const ciRecords = 300

// crash is what a scenario does to the installation at the kill point of a job, and how it
// brings it back.
type crash func(t *testing.T, c *cluster, r *rand.Rand)

// scenario starts an installation, and for each of its two jobs (a first harvest of n records,
// then a harvest of the changed catalog: adds, updates, deletes, unchanged and errors) queues
// the job, crashes the installation at a random point of it, and checks that the job finishes
// with exactly the counts of an uninterrupted run.
func scenario(t *testing.T, n int, setup func(c *cluster), hit crash) {
	r := rng(t)
	for run := range runs() {
		t.Run("", func(t *testing.T) {
			c := newCluster(t)
			setup(c)
			for i, build := range []func(*testing.T, int) ([]byte, expectation){firstCatalog, secondCatalog} {
				doc, want := build(t, n)
				c.serve(doc)
				job := c.queue()
				at := r.IntN(want.counts.Total * 9 / 10)
				t.Logf("run %d, job %d (%s): crash after %d of %d outcomes", run+1, i+1, job.ID, at, want.counts.Total)
				c.waitSettled(job.ID, at)
				hit(t, c, r)
				c.check(c.wait(job.ID), want)
			}
		})
	}
}

// pause sleeps up to max, at random: the time a restart takes.
func pause(r *rand.Rand, max time.Duration) { time.Sleep(time.Duration(r.Int64N(int64(max)))) }

// TestNoCrash is the control: the expectations are what an uninterrupted run gives.
func TestNoCrash(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.start("serve", "serve", "--addr", "127.0.0.1:0")
	for _, build := range []func(*testing.T, int) ([]byte, expectation){firstCatalog, secondCatalog} {
		doc, want := build(t, ciRecords)
		c.serve(doc)
		job := c.queue()
		c.check(c.wait(job.ID), want)
	}
}

// schedulerAndWorker runs the scheduler and one worker of every stage.
func schedulerAndWorker(c *cluster) {
	c.start("scheduler", "scheduler")
	c.start("worker", "worker", "--stages", "all")
}

// schedulerAndTwoWorkers runs the scheduler and two workers of every stage, worker-a and
// worker-b.
func schedulerAndTwoWorkers(c *cluster) {
	c.start("scheduler", "scheduler")
	c.start("worker-a", "worker", "--stages", "all")
	c.start("worker-b", "worker", "--stages", "all")
}

// restart kills the harvester process name, and starts it again after a random pause.
func restart(name string) crash {
	return func(t *testing.T, c *cluster, r *rand.Rand) {
		p := c.procs[name]
		p.kill()
		pause(r, time.Second)
		p.start(t)
	}
}

// restartNATS kills nats-server, wipes its store directory when wipe is set, and starts it
// again after a random pause.
func restartNATS(wipe bool) crash {
	return func(t *testing.T, c *cluster, r *rand.Rand) {
		c.nats.kill()
		if wipe {
			c.nats.wipe()
		}
		pause(r, time.Second)
		c.nats.start()
	}
}

// A stage worker (one of two running every stage) is killed at a random point and restarted.
func TestKillWorker(t *testing.T) {
	t.Parallel()
	scenario(t, ciRecords, schedulerAndTwoWorkers, restart("worker-a"))
}

// The all-in-one serve process is killed at a random point and restarted.
func TestKillServe(t *testing.T) {
	t.Parallel()
	scenario(t, ciRecords, func(c *cluster) {
		c.start("serve", "serve", "--addr", "127.0.0.1:0")
	}, restart("serve"))
}

// The scheduler is killed at a random point (from right after it started the job) and
// restarted.
func TestKillScheduler(t *testing.T) {
	t.Parallel()
	scenario(t, ciRecords, schedulerAndWorker, restart("scheduler"))
}

// nats-server is killed at a random point and restarted on its store.
func TestRestartNATS(t *testing.T) {
	t.Parallel()
	scenario(t, ciRecords, schedulerAndWorker, restartNATS(false))
}

// nats-server is killed at a random point and restarted with its store directory wiped: every
// message in flight, acknowledged or not, is lost. Postgres re-drives the job.
func TestWipeNATS(t *testing.T) {
	t.Parallel()
	scenario(t, ciRecords, schedulerAndWorker, restartNATS(true))
}

// The acceptance test of crash safety: a 10,000-record source (corpus records with unique
// identifiers) with one worker of two killed with SIGKILL at a random point finishes with
// exact counts, every run. CI runs it once; HARVESTER_LONG_TESTS=1 runs it 5 times.
func TestAcceptance10000Records(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 10,000-record acceptance run takes about a minute")
	}
	const n = 10_000
	r := rng(t)
	doc, want := firstCatalog(t, n)
	times := 1
	if runs() > 5 {
		times = 5
	}
	for run := range times {
		t.Run("", func(t *testing.T) {
			c := newCluster(t)
			schedulerAndTwoWorkers(c)
			c.serve(doc)
			job := c.queue()
			at := r.IntN(n * 9 / 10)
			t.Logf("run %d (%s): worker-a killed after %d of %d outcomes", run+1, job.ID, at, n)
			c.waitSettled(job.ID, at)
			restart("worker-a")(t, c, r)
			c.check(c.wait(job.ID), want)
		})
	}
}

// Postgres is crashed (immediate shutdown) at a random point of a job and restarted. A store
// call that fails meanwhile may, once its retries are spent, settle its record as errored
// with the reason: the job converges (complete with counts that add up, or error with a job
// error), and a re-run of the same catalog converges to the exact catalog.
func TestRestartPostgres(t *testing.T) {
	t.Parallel()
	r := rng(t)
	for run := range runs() {
		t.Run("", func(t *testing.T) {
			pg := startPostgres(t)
			c := newCluster(t, pg.URL())
			c.start("serve", "serve", "--addr", "127.0.0.1:0")
			doc, want := firstCatalog(t, ciRecords)
			c.serve(doc)
			job := c.queue()
			at := r.IntN(want.counts.Total * 9 / 10)
			t.Logf("run %d (%s): Postgres crashed after %d of %d outcomes", run+1, job.ID, at, want.counts.Total)
			c.waitSettled(job.ID, at)
			pg.stop("immediate")
			pause(r, 2*time.Second)
			pg.start()
			got := c.waitConverged(job.ID)
			t.Logf("job %s: %s, counts %+v, re-driven %d times", got.ID, got.Status, got.Counts, got.Redrives)

			rerun := c.queue()
			j := c.wait(rerun.ID)
			require.Equal(t, harvest.JobComplete, j.Status)
			require.Zero(t, j.Deleted)
			if f, err := c.st.JobFetchGet(context.Background(), rerun.ID); err == nil && f.NotModified {
				// The first job ended with no record failed for a reason of its own, so the
				// re-run sent a conditional GET and got 304: every live dataset is unchanged,
				// and the records the first job counted as errored are errored again.
				require.Equal(t, len(want.live), j.Unchanged, "re-run counts %+v", j.Counts)
				require.Equal(t, got.Errored, j.Errored, "re-run counts %+v", j.Counts)
				require.Equal(t, len(want.live)+got.Errored, j.Total, "re-run counts %+v", j.Counts)
			} else {
				require.Equal(t, ciRecords, j.Total)
				require.Equal(t, ciRecords, j.Added+j.Updated+j.Unchanged+j.Errored, "re-run counts %+v", j.Counts)
			}
			c.checkLive(want.live)
		})
	}
}
