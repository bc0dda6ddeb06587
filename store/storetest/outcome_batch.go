package storetest

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testOutcomeSettleBatch: a batch settles each item as OutcomeSettle would — new keys counted,
// error rows and record statuses written, a key repeated in the batch or settled before
// counted once, a finished job's counts left alone — and gives items of a missing job or with
// an unknown outcome their own error without failing the others.
func testOutcomeSettleBatch(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	done := newJob(t, s, src.ID)
	settle(t, s, done.ID, "x", harvest.OutcomeAdded)
	done = finishJob(t, s, done.ID)
	job := newJob(t, s, src.ID)
	a, b := newRecord(t, s, job, "a"), newRecord(t, s, job, "b")
	settle(t, s, job.ID, "before", harvest.OutcomeUnchanged)
	bad := []harvest.RecordError{{Type: "ValidationError", Message: "title missing", Severity: harvest.SeverityError}}

	res, err := s.OutcomeSettleBatch(ctx, []*store.OutcomeSettleParams{
		{JobID: job.ID, Key: "a", Identifier: "a", RecordID: a.ID, Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess, Validated: true},
		{JobID: job.ID, Key: "b", Identifier: "b", RecordID: b.ID, Outcome: harvest.OutcomeErrored,
			Status: harvest.RecordErrorValidation, Validated: true, Errors: bad},
		{JobID: job.ID, Key: "a", Identifier: "a", RecordID: a.ID, Outcome: harvest.OutcomeErrored, Status: harvest.RecordFailed, Errors: bad},
		{JobID: job.ID, Key: "before", Identifier: "before", Outcome: harvest.OutcomeAdded},
		{JobID: done.ID, Key: "late", Identifier: "late", Outcome: harvest.OutcomeAdded},
		{JobID: uuid.NewString(), Key: "gone", Identifier: "gone", Outcome: harvest.OutcomeAdded},
		{JobID: job.ID, Key: "odd", Identifier: "odd", Outcome: "sideways"},
		{JobID: job.ID, Key: "c", Identifier: "c", Outcome: harvest.OutcomeDeleted},
	})
	require.NoError(t, err)
	require.Len(t, res, 8)
	wantFresh := []bool{true, true, false, false, false, false, false, true}
	for i, r := range res {
		switch i {
		case 5:
			require.ErrorIs(t, r.Err, store.ErrNotFound, "a job that does not exist")
			continue
		case 6:
			require.Error(t, r.Err, "an unknown outcome")
			continue
		}
		require.NoError(t, r.Err, i)
		require.Equal(t, wantFresh[i], r.Fresh, "item %d", i)
	}
	want := counters{Added: 1, Errored: 1, Deleted: 1, Unchanged: 1, Validated: 2, Settled: 4}
	require.Equal(t, want, countersOf(res[0].Job), "the job after the whole batch")
	require.Equal(t, res[0].Job, res[7].Job)
	current, err := s.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, want, countersOf(current))
	require.Equal(t, countersOf(done), countersOf(res[4].Job), "a finished job's counts are final")

	storedA, err := s.RecordGet(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordSuccess, storedA.Status, "the first item of a key wins")
	storedB, err := s.RecordGet(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordErrorValidation, storedB.Status)
	errs := recordErrors(t, s, job.ID)
	require.Len(t, errs, 1, "only b's error row: the repeated a wrote none")
	require.Equal(t, "b", errs[0].Identifier)
	require.Equal(t, b.ID, errs[0].RecordID)
	require.Equal(t, "title missing", errs[0].Message)

	empty, err := s.OutcomeSettleBatch(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, empty)
}

// testOutcomeSettleBatchReopened: a key re-opened for a replay settles again inside a batch,
// moving its counts, next to new keys of the same job.
func testOutcomeSettleBatchReopened(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	rec := newRecord(t, s, job, "bad")
	stageFailure(t, s, rec, false, "boom")
	require.True(t, reopen(t, s, job.ID, "bad"))

	res, err := s.OutcomeSettleBatch(ctx, []*store.OutcomeSettleParams{
		{JobID: job.ID, Key: harvest.IdentifierKey("bad"), Identifier: "bad", RecordID: rec.ID,
			Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess, Validated: true},
		{JobID: job.ID, Key: "new", Identifier: "new", Outcome: harvest.OutcomeUnchanged},
		{JobID: job.ID, Key: harvest.IdentifierKey("bad"), Identifier: "bad", RecordID: rec.ID,
			Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess, Validated: true},
	})
	require.NoError(t, err)
	require.True(t, res[0].Fresh, "the re-opened key settles")
	require.True(t, res[1].Fresh)
	require.False(t, res[2].Fresh, "and closes again")
	require.Equal(t, counters{Added: 1, Unchanged: 1, Validated: 1, Settled: 2}, countersOf(res[2].Job))
	require.Empty(t, recordErrors(t, s, job.ID), "the replayed key's old error rows are gone")
	stored, err := s.RecordGet(ctx, rec.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordSuccess, stored.Status)
}
