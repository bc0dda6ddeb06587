package storetest

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testJobFailSettlesPending: a failed (cancelled) job leaves no pending record: one SYNC
// applied is success (its dataset is that record; a delete's dataset is gone), any other is
// error; settled records and other jobs' records keep their status.
func testJobFailSettlesPending(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	newDataset(t, s, first, "kept")
	newDataset(t, s, first, "dropped")
	finishJob(t, s, first.ID)

	job := newJob(t, s, src.ID)
	synced := newDataset(t, s, job, "synced") // SYNC wrote the dataset; the outcome never settled
	notSynced := newRecord(t, s, job, "not-synced")
	settled := newRecord(t, s, job, "settled")
	settleRecord(t, s, settled, harvest.RecordErrorValidation)
	deleteRecord := func(identifier string) string {
		t.Helper()
		rec, err := s.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: identifier, Action: harvest.ActionDelete})
		require.NoError(t, err)
		return rec.ID
	}
	deleted, notDeleted := deleteRecord("dropped"), deleteRecord("kept")
	_, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: src.ID, Identifier: "dropped"})
	require.NoError(t, err)
	other := newJob(t, s, newSource(t, s).ID)
	otherPending := newRecord(t, s, other, "elsewhere")

	failed, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "CancelledJob", Message: "cancelled"})
	require.NoError(t, err)
	require.Equal(t, harvest.JobError, failed.Status)
	status := func(id string) harvest.RecordStatus {
		t.Helper()
		rec, err := s.RecordGet(ctx, id)
		require.NoError(t, err)
		return rec.Status
	}
	require.Equal(t, map[string]harvest.RecordStatus{
		"synced": harvest.RecordSuccess, "not-synced": harvest.RecordFailed, "settled": harvest.RecordErrorValidation,
		"deleted": harvest.RecordSuccess, "not-deleted": harvest.RecordFailed, "other job": harvest.RecordPending,
	}, map[string]harvest.RecordStatus{
		"synced": status(synced.RecordID), "not-synced": status(notSynced.ID), "settled": status(settled.ID),
		"deleted": status(deleted), "not-deleted": status(notDeleted), "other job": status(otherPending.ID),
	})
	latest, err := s.RecordLatest(ctx, &store.RecordLatestParams{SourceID: src.ID, Identifier: "synced"})
	require.NoError(t, err)
	require.Equal(t, synced.RecordID, latest.ID, "the catalog's record is the one the next job compares against")
}

// testJobFetchLatestAfterCancel: a cancelled force_harvest whose records did not change does
// not keep conditional GET off: once a later harvest completed, its validators are reusable.
// A record the cancelled job had changed, and that never reached the catalog, still keeps it
// off until a later job settles that record.
func testJobFetchLatestAfterCancel(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	for _, id := range []string{"a", "b", "c"} {
		settleRecord(t, s, newRecord(t, s, first, id), harvest.RecordSuccess)
	}
	finishJob(t, s, first.ID)

	forced, err := s.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobForceHarvest})
	require.NoError(t, err)
	newDataset(t, s, forced, "a") // synced, not settled
	newRecord(t, s, forced, "b")  // not synced; same content as the first job's
	_, err = s.JobFail(ctx, &store.JobFailParams{JobID: forced.ID, Type: "CancelledJob", Message: "cancelled"})
	require.NoError(t, err)

	next := newJob(t, s, src.ID) // every record unchanged: it writes none
	require.NoError(t, s.JobFetchSet(ctx, &store.JobFetch{JobID: next.ID, URL: "u", ETag: "e"}))
	finishJob(t, s, next.ID)
	got, err := s.JobFetchLatest(ctx, src.ID)
	require.NoError(t, err, "nothing is left for a harvest to do")
	require.Equal(t, next.ID, got.JobID)

	changed := newJob(t, s, src.ID)
	_, err = s.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: changed.ID, SourceID: src.ID,
		Identifier: "c", Action: harvest.ActionUpdate, SourceHash: "changed"})
	require.NoError(t, err)
	_, err = s.JobFail(ctx, &store.JobFailParams{JobID: changed.ID, Type: "CancelledJob", Message: "cancelled"})
	require.NoError(t, err)
	again := newJob(t, s, src.ID)
	require.NoError(t, s.JobFetchSet(ctx, &store.JobFetch{JobID: again.ID, URL: "u", ETag: "e2"}))
	finishJob(t, s, again.ID)
	_, err = s.JobFetchLatest(ctx, src.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "c changed and never reached the catalog: harvest it again")
}
