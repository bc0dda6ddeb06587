package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// failJob ends a job in error.
func failJob(t *testing.T, s store.Store, jobID string) *store.HarvestJob {
	t.Helper()
	job, err := s.JobFail(t.Context(), &store.JobFailParams{JobID: jobID, Type: "Test", Message: "failed"})
	require.NoError(t, err)
	return job
}

// testJobStatsEmpty: a store without jobs has nothing in progress and no latest status.
func testJobStatsEmpty(t *testing.T, s store.Store) {
	newSource(t, s)
	st, err := s.JobStats(t.Context())
	require.NoError(t, err)
	require.Equal(t, &store.JobStats{}, st)
}

// testJobStats: jobs in progress are summed, sources are grouped by the status of their latest
// finished job, and the failed streak counts the errors since a source's latest complete job.
func testJobStats(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := newSource(t, s) // complete, error, error: latest error, a streak of 2
	finishJob(t, s, newJob(t, s, a.ID).ID)
	failJob(t, s, newJob(t, s, a.ID).ID)
	lastErr := failJob(t, s, newJob(t, s, a.ID).ID)
	b := newSource(t, s) // error, complete: latest complete
	failJob(t, s, newJob(t, s, b.ID).ID)
	b2 := newJob(t, s, b.ID)
	settle(t, s, b2.ID, "x", harvest.OutcomeAdded)
	lastComplete := finishJob(t, s, b2.ID)
	c := newSource(t, s) // in progress, 1 of 3 settled
	running := newJob(t, s, c.ID)
	_, err := s.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: running.ID, Expected: 3})
	require.NoError(t, err)
	settle(t, s, running.ID, "a", harvest.OutcomeAdded)
	d := newSource(t, s) // in progress, listing not complete: counts its settled only
	other := newJob(t, s, d.ID)
	settle(t, s, other.ID, "a", harvest.OutcomeUnchanged)

	st, err := s.JobStats(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.InProgress)
	require.Equal(t, 3, st.InProgressExpected)
	require.Equal(t, 2, st.InProgressSettled)
	require.NotNil(t, st.OldestStart)
	require.WithinDuration(t, running.CreatedAt, *st.OldestStart, time.Millisecond)
	require.NotNil(t, st.StalestHeartbeat)
	require.Equal(t, 2, st.MaxFailedStreak)
	require.Len(t, st.Latest, 2)
	byStatus := map[harvest.JobStatus]store.SourceLatestJobs{}
	for _, l := range st.Latest {
		byStatus[l.Status] = l
	}
	require.Equal(t, 1, byStatus[harvest.JobComplete].Sources)
	require.Equal(t, 1, byStatus[harvest.JobError].Sources)
	require.WithinDuration(t, *lastComplete.FinishedAt, *byStatus[harvest.JobComplete].LastFinished, time.Millisecond)
	require.WithinDuration(t, *lastErr.FinishedAt, *byStatus[harvest.JobError].LastFinished, time.Millisecond)

	// A complete run ends the streak.
	a4 := newJob(t, s, a.ID)
	finishJob(t, s, a4.ID)
	st, err = s.JobStats(ctx)
	require.NoError(t, err)
	require.Equal(t, 0, st.MaxFailedStreak)
	require.Len(t, st.Latest, 1)
	require.Equal(t, 2, st.Latest[0].Sources)
}
