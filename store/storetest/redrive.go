package storetest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testJobRedrive pins JobRedrive: only a stale in_progress job below the bound is re-driven,
// its heartbeat moves to now (it is no longer an orphan) and Redrives counts up.
func testJobRedrive(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	require.Zero(t, job.Redrives)
	redrive := func(before time.Time, maxRedrives int) (*store.HarvestJob, bool) {
		t.Helper()
		j, ok, err := s.JobRedrive(ctx, &store.JobRedriveParams{JobID: job.ID, Before: before, Max: maxRedrives})
		require.NoError(t, err)
		return j, ok
	}

	j, ok := redrive(job.CreatedAt.Add(-time.Hour), 3)
	require.False(t, ok, "a job with a fresh heartbeat is not an orphan")
	require.Zero(t, j.Redrives)

	cut := time.Now().Add(time.Second)
	j, ok = redrive(cut, 3)
	require.True(t, ok)
	require.Equal(t, 1, j.Redrives)
	require.Equal(t, harvest.JobInProgress, j.Status)
	orphans, err := s.JobListOrphaned(ctx, &store.JobListOrphanedParams{Before: time.Now().Add(-time.Minute)})
	require.NoError(t, err)
	require.NotContains(t, jobIDs(orphans), job.ID, "a re-driven job beats")

	_, ok = redrive(time.Now().Add(-time.Minute), 3)
	require.False(t, ok, "the heartbeat was just set: not stale any more")

	j, ok = redrive(time.Now().Add(time.Hour), 2)
	require.True(t, ok)
	require.Equal(t, 2, j.Redrives)
	j, ok = redrive(time.Now().Add(time.Hour), 2)
	require.False(t, ok, "the bound is reached")
	require.Equal(t, 2, j.Redrives)
	got, err := s.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, 2, got.Redrives)

	finishJob(t, s, job.ID)
	_, ok = redrive(time.Now().Add(time.Hour), 10)
	require.False(t, ok, "a finished job is not re-driven")

	_, _, err = s.JobRedrive(ctx, &store.JobRedriveParams{JobID: uuid.NewString(), Before: time.Now(), Max: 1})
	require.ErrorIs(t, err, store.ErrNotFound)
}

// testRecordDeleteStream pins RecordDeleteStream: the job's delete records only, by identifier,
// and fn's error stops it.
func testRecordDeleteStream(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	newRecord(t, s, job, "kept") // a create: not a delete
	for _, id := range []string{"gone-b", "gone-a"} {
		_, err := s.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID,
			SourceID: src.ID, Identifier: id, Action: harvest.ActionDelete})
		require.NoError(t, err)
	}
	finishJob(t, s, job.ID)
	other := newJob(t, s, src.ID)
	_, err := s.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: other.ID,
		SourceID: src.ID, Identifier: "other-job", Action: harvest.ActionDelete})
	require.NoError(t, err)

	var got []string
	require.NoError(t, s.RecordDeleteStream(ctx, job.ID, func(id string) error { got = append(got, id); return nil }))
	require.Equal(t, []string{"gone-a", "gone-b"}, got)

	requireStops(t, func(each func() error) error {
		return s.RecordDeleteStream(ctx, job.ID, func(string) error { return each() })
	})
}
