package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// startQueued calls JobStartQueued with the cap and returns the started jobs' ids.
func startQueued(t *testing.T, s store.Store, maxInProgress int) []string {
	t.Helper()
	started, err := s.JobStartQueued(t.Context(), &store.JobStartQueuedParams{MaxInProgress: maxInProgress})
	require.NoError(t, err)
	for _, j := range started {
		require.Equal(t, harvest.JobInProgress, j.Status)
		got, err := s.JobGet(t.Context(), j.ID)
		require.NoError(t, err)
		require.Equal(t, got, j)
	}
	return jobIDs(started)
}

// inProgress is the number of jobs in progress.
func inProgress(t *testing.T, s store.Store) int {
	t.Helper()
	_, total, err := s.JobList(t.Context(), &store.JobListParams{Status: harvest.JobInProgress})
	require.NoError(t, err)
	return total
}

// testJobStartQueuedCap: the oldest queued jobs start while fewer than the cap run.
func testJobStartQueuedCap(t *testing.T, s store.Store) {
	ctx := t.Context()
	var queued []*store.HarvestJob
	for range 5 {
		queued = append(queued, newQueuedJob(t, s, newSource(t, s).ID))
	}
	ids := jobIDs(queued)

	require.Equal(t, ids[:2], startQueued(t, s, 2), "the two oldest")
	require.Empty(t, startQueued(t, s, 2), "the cap is reached")
	got, err := s.JobGet(ctx, ids[2])
	require.NoError(t, err)
	require.Equal(t, harvest.JobNew, got.Status)

	finishJob(t, s, ids[0])
	require.Equal(t, ids[2:3], startQueued(t, s, 2), "one slot freed: the next oldest")

	_, err = s.JobFail(ctx, &store.JobFailParams{JobID: ids[3], Type: "Cancelled", Message: "by test"})
	require.NoError(t, err)
	_, err = s.JobFail(ctx, &store.JobFailParams{JobID: ids[1], Type: "ExtractError", Message: "404"})
	require.NoError(t, err)
	require.Equal(t, ids[4:], startQueued(t, s, 2), "a failed queued job is skipped")
	require.Empty(t, startQueued(t, s, 10), "nothing left to start")
	require.Equal(t, 2, inProgress(t, s))
}

// testJobStartQueuedCountsRunning: jobs started directly count against the cap; a cap of 0
// starts nothing.
func testJobStartQueuedCountsRunning(t *testing.T, s store.Store) {
	newJob(t, s, newSource(t, s).ID)
	first := newQueuedJob(t, s, newSource(t, s).ID)
	newQueuedJob(t, s, newSource(t, s).ID)

	require.Empty(t, startQueued(t, s, 0))
	require.Empty(t, startQueued(t, s, 1))
	require.Equal(t, []string{first.ID}, startQueued(t, s, 2))
	require.Equal(t, 2, inProgress(t, s))
}

// testJobStartQueuedConcurrent: racing callers together start exactly the free slots, each job
// once. Rounds repeat the race on warm connections, finishing the started jobs in between.
func testJobStartQueuedConcurrent(t *testing.T, s store.Store) {
	const queued, maxInProgress, callers = 15, 3, 8
	for range queued {
		newQueuedJob(t, s, newSource(t, s).ID)
	}
	seen := map[string]bool{}
	for len(seen) < queued {
		started := make([][]*store.HarvestJob, callers)
		errs := make([]error, callers)
		ready := make(chan struct{})
		var wg sync.WaitGroup
		for i := range callers {
			wg.Go(func() {
				<-ready
				started[i], errs[i] = s.JobStartQueued(t.Context(), &store.JobStartQueuedParams{MaxInProgress: maxInProgress})
			})
		}
		close(ready)
		wg.Wait()
		var round []string
		for i := range callers {
			require.NoError(t, errs[i])
			for _, j := range started[i] {
				require.False(t, seen[j.ID], "job %s started twice", j.ID)
				seen[j.ID] = true
				round = append(round, j.ID)
			}
		}
		require.Len(t, round, maxInProgress, "exactly the free slots are filled")
		require.Equal(t, maxInProgress, inProgress(t, s))
		for _, id := range round {
			finishJob(t, s, id)
		}
	}
}

// testJobHeartbeat: a heartbeat keeps a running job off the orphan list; a missing job is not
// found.
func testJobHeartbeat(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	cut := time.Now()
	orphans := func() []string {
		t.Helper()
		jobs, err := s.JobListOrphaned(ctx, &store.JobListOrphanedParams{Before: cut})
		require.NoError(t, err)
		return jobIDs(jobs)
	}
	require.Equal(t, []string{job.ID}, orphans())
	require.NoError(t, s.JobHeartbeat(ctx, job.ID))
	require.Empty(t, orphans())

	got, err := s.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, job, got, "a heartbeat changes no other field")
	require.ErrorIs(t, s.JobHeartbeat(ctx, uuid.NewString()), store.ErrNotFound)
}

// testJobListOrphaned: in_progress jobs whose heartbeat is older than Before, oldest first;
// queued and finished jobs are never orphans, and a started job's heartbeat is fresh.
func testJobListOrphaned(t *testing.T, s store.Store) {
	ctx := t.Context()
	older := newJob(t, s, newSource(t, s).ID)
	old := newJob(t, s, newSource(t, s).ID)
	queued := newQueuedJob(t, s, newSource(t, s).ID)
	finishJob(t, s, newJob(t, s, newSource(t, s).ID).ID)
	failed := newJob(t, s, newSource(t, s).ID)
	_, err := s.JobFail(ctx, &store.JobFailParams{JobID: failed.ID, Type: "ExtractError", Message: "404"})
	require.NoError(t, err)
	cut := time.Now()
	fresh := newJob(t, s, newSource(t, s).ID)
	orphans := func(before time.Time) []string {
		t.Helper()
		jobs, err := s.JobListOrphaned(ctx, &store.JobListOrphanedParams{Before: before})
		require.NoError(t, err)
		return jobIDs(jobs)
	}

	require.Equal(t, []string{older.ID, old.ID}, orphans(cut))
	require.Equal(t, []string{queued.ID}, startQueued(t, s, 10))
	require.Equal(t, []string{older.ID, old.ID}, orphans(cut), "a started job beats at once")
	require.Equal(t, []string{older.ID, old.ID, fresh.ID, queued.ID}, orphans(time.Now().Add(time.Hour)))
	require.Empty(t, orphans(older.CreatedAt.Add(-time.Hour)))

	jobs, err := s.JobListOrphaned(ctx, &store.JobListOrphanedParams{Before: cut})
	require.NoError(t, err)
	require.Equal(t, older, jobs[0], "every field is returned")
}

// testJobCountBehind: the in_progress jobs other than the one asking, with fewer outcomes
// settled than it has, count; queued, finished and failed jobs, and jobs as far or further,
// do not.
func testJobCountBehind(t *testing.T, s store.Store) {
	ctx := t.Context()
	big := newJob(t, s, newSource(t, s).ID)
	count := func(settled int) int {
		t.Helper()
		n, err := s.JobCountBehind(ctx, big.ID, settled)
		require.NoError(t, err)
		return n
	}
	require.Equal(t, 0, count(10), "alone")
	small := newJob(t, s, newSource(t, s).ID)
	queued := newQueuedJob(t, s, newSource(t, s).ID)
	failed := newJob(t, s, newSource(t, s).ID)
	for _, k := range []string{"a", "b"} {
		settle(t, s, small.ID, k, harvest.OutcomeAdded)
	}
	require.Equal(t, 2, count(10), "small and failed; the queued job uses no pipeline")
	require.Equal(t, 1, count(2), "small has settled 2: not behind a job at 2")
	require.Equal(t, 0, count(0))
	_, err := s.JobFail(ctx, &store.JobFailParams{JobID: failed.ID, Type: "Cancelled", Message: "by test"})
	require.NoError(t, err)
	require.Equal(t, 1, count(10))
	started := startQueued(t, s, 10)
	require.Equal(t, []string{queued.ID}, started)
	require.Equal(t, 2, count(10), "started: it runs now")
	finishJob(t, s, small.ID)
	finishJob(t, s, queued.ID)
	require.Equal(t, 0, count(10))
}
