package scheduler_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/scheduler"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
	"github.com/harvester-dev/harvester/store/sqlite"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// backends open a fresh store, and a function that opens a second instance on the same data.
var backends = map[string]func(t *testing.T) (store.Store, func(t *testing.T) store.Store){
	"postgres": func(t *testing.T) (store.Store, func(t *testing.T) store.Store) {
		url := dbtest.URL(t)
		open := func(t *testing.T) store.Store {
			st, err := postgres.Open(context.Background(), url)
			require.NoError(t, err)
			t.Cleanup(st.Close)
			require.NoError(t, st.Migrate(context.Background()))
			return st
		}
		return open(t), open
	},
	"sqlite": func(t *testing.T) (store.Store, func(t *testing.T) store.Store) {
		path := filepath.Join(t.TempDir(), "h.db")
		open := func(t *testing.T) store.Store {
			st, err := sqlite.Open(context.Background(), path)
			require.NoError(t, err)
			t.Cleanup(st.Close)
			require.NoError(t, st.Migrate(context.Background()))
			return st
		}
		return open(t), open
	},
}

// runStages runs every stage against st on a fresh in-process NATS and returns its URL.
func runStages(t *testing.T, st store.Store) string {
	t.Helper()
	url := natstest.URL(t)
	runStagesOn(t, st, url)
	return url
}

// runStagesOn runs every stage against st on the NATS server at url.
func runStagesOn(t *testing.T, st store.Store, url string) {
	t.Helper()
	p, err := pipeline.New(context.Background(), pipeline.Config{Store: st, NATSURL: url, Logger: quiet,
		Stages: pipeline.StageNames(), SearchIndex: "none"})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	require.NoError(t, p.Start(context.Background()))
}

func bus(t *testing.T, url string) *router.Bus {
	t.Helper()
	b, err := router.Connect(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(b.Close)
	return b
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCapOnJobsInProgress(t *testing.T) {
	t.Parallel()
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st, _ := open(t)
			url := runStages(t, st)
			files := []string{"dcatus/datagov-cftc.data.json", "dcatus/INVALID-datagov-mixed-identifiers.data.json",
				"dcatus/agency-cfpb-2025-07.data.json", "dcatus/datajson-collection-2-parents-4-children.data.json",
				"dcatus/INVALID-datajson-missing-identifier-title.data.json"}
			for _, f := range files {
				_, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: f, URL: corpustest.Path(t, f),
					SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11NonFederal,
					Frequency: harvest.FrequencyDaily})
				require.NoError(t, err)
			}
			s, err := scheduler.New(scheduler.Config{Interval: 20 * time.Millisecond, MaxInProgress: 2},
				st, bus(t, url).Publisher(), quiet)
			require.NoError(t, err)

			// Watch the table the whole time: never more than 2 jobs in progress.
			var most atomic.Int32
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					_, n, err := st.JobList(ctx, &store.JobListParams{Status: harvest.JobInProgress})
					if err == nil && int32(n) > most.Load() {
						most.Store(int32(n))
					}
					time.Sleep(time.Millisecond)
				}
			}()
			s.Start(ctx)
			defer s.Stop()
			waitFor(t, "5 complete jobs", func() bool {
				_, n, err := st.JobList(ctx, &store.JobListParams{Status: harvest.JobComplete})
				return err == nil && n == 5
			})
			close(stop)
			wg.Wait()
			require.LessOrEqual(t, most.Load(), int32(2), "the cap holds")
			require.Equal(t, int32(2), most.Load(), "jobs do run two at a time")

			sources, _, err := st.SourceList(ctx, &store.SourceListParams{})
			require.NoError(t, err)
			for _, src := range sources {
				require.NotNil(t, src.NextRunAt)
				require.True(t, src.NextRunAt.After(time.Now().Add(23*time.Hour)), "next run a day later: %v", src.NextRunAt)
			}
			_, n, err := st.JobList(ctx, &store.JobListParams{})
			require.NoError(t, err)
			require.Equal(t, 5, n, "each due source ran once")
		})
	}
}

func TestStandbySchedulerTakesOverAndCleansOrphans(t *testing.T) {
	t.Parallel()
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			stB, openOther := open(t)
			stA := openOther(t)
			src := cftcSource(t, stB)

			// Scheduler A leads and starts a job; its process then dies with the job in flight:
			// its bus goes away with it, so no stage ever sees the job.
			deadBus := bus(t, natstest.URL(t))
			a, err := scheduler.New(scheduler.Config{Holder: "a", Interval: time.Hour, LeaderTTL: 2 * time.Second},
				stA, deadBus.Publisher(), quiet)
			require.NoError(t, err)
			job, err := jobs.Control{Store: stA}.Enqueue(ctx, src.ID, harvest.JobHarvest)
			require.NoError(t, err)
			require.NoError(t, a.Tick(ctx))
			got, err := stA.JobGet(ctx, job.ID)
			require.NoError(t, err)
			require.Equal(t, harvest.JobInProgress, got.Status)

			url := natstest.URL(t)
			// A loaded machine may take longer than OrphanTimeout to finish a re-drive, which is
			// then re-driven again: that is the rule, not the failure under test, so the job may
			// be re-driven as often as it takes (the counts stay exact: every stage is idempotent).
			b, err := scheduler.New(scheduler.Config{Holder: "b", Interval: 20 * time.Millisecond,
				OrphanTimeout: 200 * time.Millisecond, MaxRedrives: 1000, LeaderTTL: 2 * time.Second}, stB, bus(t, url).Publisher(), quiet)
			require.NoError(t, err)
			leader, err := b.Leader(ctx)
			require.NoError(t, err)
			require.False(t, leader, "B stands by while A leads")
			runStagesOn(t, stB, url)

			stA.Close() // A is killed: no Stop, no release; its connection (or lease) dies with it
			b.Start(ctx)
			defer b.Stop()
			waitFor(t, "the orphan to be re-driven to the end", func() bool {
				j, err := stB.JobGet(ctx, job.ID)
				return err == nil && j.Status.Finished()
			})
			j, err := stB.JobGet(ctx, job.ID)
			require.NoError(t, err)
			require.Equal(t, harvest.JobComplete, j.Status, "the orphan is re-driven from Postgres, not failed")
			require.Equal(t, 7, j.Total)
			require.Equal(t, 7, j.Added)
			require.GreaterOrEqual(t, j.Redrives, 1)
			errs, err := stB.JobErrorList(ctx, job.ID)
			require.NoError(t, err)
			require.Empty(t, errs)

			next, err := jobs.Control{Store: stB}.Enqueue(ctx, src.ID, harvest.JobHarvest)
			require.NoError(t, err, "the source can run again")
			waitFor(t, "the next job to complete", func() bool {
				j, err := stB.JobGet(ctx, next.ID)
				return err == nil && j.Status == harvest.JobComplete
			})
			j, err = stB.JobGet(ctx, next.ID)
			require.NoError(t, err)
			require.Equal(t, 7, j.Total)
			require.Equal(t, 7, j.Unchanged)
		})
	}
}

// An orphan whose re-drives never make progress (no stage consumes its messages) is re-driven
// MaxRedrives times, then ended with a job error that says so, and its source can run again.
func TestRedrivesAreBounded(t *testing.T) {
	t.Parallel()
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st, _ := open(t)
			job := cftcJob(t, st)
			s, err := scheduler.New(scheduler.Config{Interval: 10 * time.Millisecond, OrphanTimeout: 50 * time.Millisecond,
				MaxRedrives: 2}, st, bus(t, natstest.URL(t)).Publisher(), quiet) // streams, but no stages
			require.NoError(t, err)
			s.Start(ctx)
			defer s.Stop()
			waitFor(t, "the orphan to be ended", func() bool {
				j, err := st.JobGet(ctx, job.ID)
				return err == nil && j.Status == harvest.JobError
			})
			j, err := st.JobGet(ctx, job.ID)
			require.NoError(t, err)
			require.Equal(t, 2, j.Redrives)
			errs, err := st.JobErrorList(ctx, job.ID)
			require.NoError(t, err)
			require.Len(t, errs, 1)
			require.Equal(t, "FailedJobCleanup", errs[0].Type)
			require.Contains(t, errs[0].Message, "re-driven 2 times")
			require.Contains(t, errs[0].Message, "the worker processes running it most likely crashed or were killed",
				"the message names the likely cause")
			require.Contains(t, errs[0].Message, "Look in the workers' logs and exit statuses", "and what to do")
			_, err = jobs.Control{Store: st}.Enqueue(ctx, job.SourceID, harvest.JobHarvest)
			require.NoError(t, err, "the source can run again")
		})
	}
}

func TestNextRunKeepsToThePlan(t *testing.T) {
	t.Parallel()
	planned := time.Date(2026, 1, 31, 2, 0, 0, 0, time.UTC)
	late := planned.Add(3 * time.Minute) // the tick that ran it came late
	require.Equal(t, time.Date(2026, 2, 1, 2, 0, 0, 0, time.UTC), *scheduler.NextRun(harvest.FrequencyDaily, planned, late))
	require.Equal(t, time.Date(2026, 2, 7, 2, 0, 0, 0, time.UTC), *scheduler.NextRun(harvest.FrequencyWeekly, planned, late))
	require.Equal(t, time.Date(2026, 2, 28, 2, 0, 0, 0, time.UTC), *scheduler.NextRun(harvest.FrequencyMonthly, planned, late),
		"a monthly run on the 31st falls on February's last day")
	// Down for ten days: the next run is the first planned one still ahead, not ten catch-ups.
	require.Equal(t, time.Date(2026, 2, 11, 2, 0, 0, 0, time.UTC),
		*scheduler.NextRun(harvest.FrequencyDaily, planned, planned.Add(10*24*time.Hour+time.Hour)))
	require.Nil(t, scheduler.NextRun(harvest.FrequencyManual, planned, late))
}

func TestStartStopIsSafe(t *testing.T) {
	t.Parallel()
	st, _ := backends["sqlite"](t)
	s, err := scheduler.New(scheduler.Config{Interval: time.Millisecond}, st, bus(t, natstest.URL(t)).Publisher(), quiet)
	require.NoError(t, err)
	s.Stop() // before start
	for range 20 {
		s.Start(context.Background())
		s.Start(context.Background())
		s.Stop()
		s.Stop()
	}
	_, err = scheduler.New(scheduler.Config{MaxInProgress: -1}, st, nil, quiet)
	require.ErrorContains(t, err, "MaxInProgress")
}

// TestDispatchFailureLeavesTheJobToRedrive: a job whose message cannot be sent when it starts
// (the broker is down) is not failed at once: it stays in progress in Postgres, and orphan
// cleanup re-drives it, ending it only after MaxRedrives tries.
func TestDispatchFailureLeavesTheJobToRedrive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := backends["sqlite"](t)
	job := cftcJob(t, st)
	down := bus(t, natstest.URL(t))
	down.Close() // every publish fails
	s, err := scheduler.New(scheduler.Config{Interval: 10 * time.Millisecond, OrphanTimeout: 50 * time.Millisecond,
		MaxRedrives: 1}, st, down.Publisher(), quiet)
	require.NoError(t, err)
	s.Start(ctx)
	defer s.Stop()
	waitFor(t, "the job to end", func() bool {
		j, err := st.JobGet(ctx, job.ID)
		return err == nil && j.Status == harvest.JobError
	})
	errs, err := st.JobErrorList(ctx, job.ID)
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Equal(t, "FailedJobCleanup", errs[0].Type, "ended by orphan cleanup, not at dispatch: %s", errs[0].Message)
}

// TestOrphanMessageNamesCrash: a job ended by orphan cleanup without re-drives (MaxRedrives
// -1) says that its worker process most likely crashed or was killed, and what to look at.
func TestOrphanMessageNamesCrash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := backends["sqlite"](t)
	job := cftcJob(t, st)
	s, err := scheduler.New(scheduler.Config{Interval: 10 * time.Millisecond, OrphanTimeout: 50 * time.Millisecond,
		MaxRedrives: -1}, st, bus(t, natstest.URL(t)).Publisher(), quiet) // streams, but no stages
	require.NoError(t, err)
	s.Start(ctx)
	defer s.Stop()
	waitFor(t, "the orphan to be ended", func() bool {
		j, err := st.JobGet(ctx, job.ID)
		return err == nil && j.Status == harvest.JobError
	})
	errs, err := st.JobErrorList(ctx, job.ID)
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Equal(t, "FailedJobCleanup", errs[0].Type)
	require.Contains(t, errs[0].Message, "no progress for more than 50ms: the worker process running this job most likely "+
		"crashed or was killed; the job was ended so that its source can run again.")
	require.Contains(t, errs[0].Message, "Look in the workers' logs and exit statuses around the job's last heartbeat")
}

// TestRedriveWaitsForTheStreams: a job whose message was lost with a nats-server's store
// (killed and wiped) is not re-driven while the server is down, nor counted: the re-drives wait
// until the streams answer again (Config.BusReady, router.Bus.StreamsReady, which makes them
// again), then re-drives finish the job. Without the wait, the publishes that fail while the
// server is down are counted as re-drives (and use up a small MaxRedrives: the job is ended).
func TestRedriveWaitsForTheStreams(t *testing.T) {
	t.Parallel()
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st, _ := open(t)
			srv := startRestartable(t)
			b := bus(t, srv.url())
			job := cftcJob(t, st)
			started, err := jobs.Control{Store: st, Publisher: b.Publisher()}.StartQueued(ctx, 1)
			require.NoError(t, err)
			require.Len(t, started, 1, "the job is in progress, its message sent to a server that no stage reads")
			srv.stopAndWipe() // the message is lost with the store

			var down atomic.Int32
			// MaxRedrives is large: after the restart a loaded machine may take longer than the
			// 50 ms orphan timeout between heartbeats, and each such gap is one more re-drive;
			// what the test holds is that none is counted while the broker is down.
			s, err := scheduler.New(scheduler.Config{Interval: 10 * time.Millisecond, OrphanTimeout: 50 * time.Millisecond,
				MaxRedrives: 1000, BusReady: func(ctx context.Context) error {
					err := b.StreamsReady(ctx)
					if err != nil {
						down.Add(1)
					}
					return err
				}}, st, b.Publisher(), quiet)
			require.NoError(t, err)
			s.Start(ctx)
			defer s.Stop()
			waitFor(t, "the scheduler to find the broker down 20 times", func() bool {
				j, err := st.JobGet(ctx, job.ID)
				require.NoError(t, err)
				return down.Load() >= 20 || j.Status.Finished()
			})
			j, err := st.JobGet(ctx, job.ID)
			require.NoError(t, err)
			require.Equal(t, harvest.JobInProgress, j.Status, "the orphan waits for the broker")
			require.Zero(t, j.Redrives, "no re-drive is counted while the broker is down")

			srv.start()
			runStagesOn(t, st, srv.url())
			waitFor(t, "the orphan to be re-driven to the end", func() bool {
				j, err := st.JobGet(ctx, job.ID)
				require.NoError(t, err)
				return j.Status.Finished()
			})
			j, err = st.JobGet(ctx, job.ID)
			require.NoError(t, err)
			errs, err := st.JobErrorList(ctx, job.ID)
			require.NoError(t, err)
			require.Equal(t, harvest.JobComplete, j.Status, "job errors: %v", errs)
			require.Equal(t, 7, j.Added)
			require.Positive(t, j.Redrives)
		})
	}
}

// restartable is an in-process nats-server with JetStream on a fixed port and store directory,
// which a test stops, wipes and starts again.
type restartable struct {
	t    *testing.T
	opts server.Options
	srv  *server.Server
}

func startRestartable(t *testing.T) *restartable {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	r := &restartable{t: t, opts: server.Options{ServerName: "restartable", Host: "127.0.0.1", Port: port,
		JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *restartable) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", r.opts.Port) }

// start starts the server and waits until it accepts connections (a failsafe bounds the wait).
func (r *restartable) start() {
	r.t.Helper()
	opts := r.opts
	s, err := server.NewServer(&opts)
	require.NoError(r.t, err)
	go s.Start()
	require.True(r.t, s.ReadyForConnections(2*time.Minute), "nats-server did not start")
	r.srv = s
}

func (r *restartable) stop() {
	if r.srv != nil {
		r.srv.Shutdown()
		r.srv.WaitForShutdown()
		r.srv = nil
	}
}

// stopAndWipe stops the server and deletes its store: every stream and message is gone.
func (r *restartable) stopAndWipe() {
	r.stop()
	entries, err := os.ReadDir(r.opts.StoreDir)
	require.NoError(r.t, err)
	for _, e := range entries {
		require.NoError(r.t, os.RemoveAll(filepath.Join(r.opts.StoreDir, e.Name())))
	}
}

// cftcSource adds a non-federal data.json source of the CFTC corpus catalog to st.
func cftcSource(t *testing.T, st store.Store) *store.Source {
	t.Helper()
	src, err := st.SourceInsert(t.Context(), &store.SourceInsertParams{Name: "cftc",
		URL: corpustest.Path(t, "dcatus/datagov-cftc.data.json"), SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11NonFederal})
	require.NoError(t, err)
	return src
}

// cftcJob queues a harvest job of a new cftcSource.
func cftcJob(t *testing.T, st store.Store) *store.HarvestJob {
	t.Helper()
	job, err := jobs.Control{Store: st}.Enqueue(t.Context(), cftcSource(t, st).ID, harvest.JobHarvest)
	require.NoError(t, err)
	return job
}
