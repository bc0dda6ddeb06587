package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// stageFailure settles the record's key as errored the way the router's failure policy does:
// status error, one StageError row, validated as given. It returns the job after the settle.
func stageFailure(t *testing.T, s store.Store, rec *store.HarvestRecord, validated bool, reason string) *store.HarvestJob {
	t.Helper()
	job, _, err := s.OutcomeSettle(t.Context(), &store.OutcomeSettleParams{
		JobID: rec.JobID, Key: harvest.IdentifierKey(rec.Identifier), Identifier: rec.Identifier, RecordID: rec.ID,
		Outcome: harvest.OutcomeErrored, Status: harvest.RecordFailed, Validated: validated,
		Errors: []harvest.RecordError{{Type: "StageError", Message: reason, Severity: harvest.SeverityError}},
	})
	require.NoError(t, err)
	return job
}

// reopen re-opens the record's key and returns OutcomeReopen's verdict.
func reopen(t *testing.T, s store.Store, jobID, identifier string) bool {
	t.Helper()
	ok, err := s.OutcomeReopen(t.Context(), &store.OutcomeReopenParams{JobID: jobID, Key: harvest.IdentifierKey(identifier)})
	require.NoError(t, err)
	return ok
}

// testOutcomeReopenMovesCounts: a re-opened errored key of a finished job accepts one new
// outcome, which moves the counts from errored (validated included) and replaces its error rows.
func testOutcomeReopenMovesCounts(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	ok := newRecord(t, s, job, "ok")
	bad := newRecord(t, s, job, "bad")
	settleRecord(t, s, ok, harvest.RecordSuccess)
	stageFailure(t, s, bad, true, "sync stage failed: check constraint")
	_, _, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "pos:7", Identifier: "bad",
		Outcome: harvest.OutcomeErrored, Errors: []harvest.RecordError{{Type: "DuplicateIdentifier", Message: "repeated",
			Severity: harvest.SeverityError}}})
	require.NoError(t, err)
	done := finishJob(t, s, job.ID)
	require.Equal(t, counters{Total: 3, Added: 1, Errored: 2, Validated: 1, Settled: 3}, countersOf(done))

	require.False(t, reopen(t, s, job.ID, "ok"), "a key that settled as added is not re-opened")
	require.False(t, reopen(t, s, job.ID, "never-listed"), "a key that never settled is not re-opened")
	require.True(t, reopen(t, s, job.ID, "bad"))
	require.False(t, reopen(t, s, job.ID, "bad"), "a key already re-opened is in flight")
	n, err := s.OutcomeReopenedCount(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	same, err := s.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, countersOf(done), countersOf(same), "re-opening changes no count")

	got, fresh, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: harvest.IdentifierKey("bad"),
		Identifier: "bad", RecordID: bad.ID, Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess, Validated: true,
		Errors: []harvest.RecordError{{Type: "TransformWarning", Message: "placeholder", Severity: harvest.SeverityWarning}}})
	require.NoError(t, err)
	require.True(t, fresh, "the replayed outcome counts")
	require.Equal(t, counters{Total: 3, Added: 2, Errored: 1, Validated: 1, Settled: 3}, countersOf(got),
		"errored moved to added; validated was counted already")
	require.Equal(t, harvest.JobComplete, got.Status)
	stored, err := s.RecordGet(ctx, bad.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordSuccess, stored.Status)
	errs := recordErrors(t, s, job.ID)
	require.Len(t, errs, 2, "the StageError row is replaced by the new outcome's rows; other keys keep theirs")
	require.Equal(t, "TransformWarning", errs[0].Type) // ordered by identifier, then message
	require.Equal(t, "DuplicateIdentifier", errs[1].Type)

	again, fresh, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: harvest.IdentifierKey("bad"),
		Identifier: "bad", RecordID: bad.ID, Outcome: harvest.OutcomeErrored, Status: harvest.RecordFailed})
	require.NoError(t, err)
	require.False(t, fresh, "a redelivered outcome after the replay's changes nothing")
	require.Equal(t, countersOf(got), countersOf(again))
	require.False(t, reopen(t, s, job.ID, "bad"), "a key that now settled as added is not re-opened")
	n, err = s.OutcomeReopenedCount(ctx, job.ID)
	require.NoError(t, err)
	require.Zero(t, n)
}

// testOutcomeReopenFailsAgain: a replayed key that fails again stays errored with the same
// counts, and its new error rows replace the old ones; it can be re-opened again.
func testOutcomeReopenFailsAgain(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	bad := newRecord(t, s, job, "bad")
	stageFailure(t, s, bad, false, "first failure")
	done := finishJob(t, s, job.ID)
	want := counters{Total: 1, Errored: 1, Settled: 1}
	require.Equal(t, want, countersOf(done))

	require.True(t, reopen(t, s, job.ID, "bad"))
	got, fresh, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: harvest.IdentifierKey("bad"),
		Identifier: "bad", RecordID: bad.ID, Outcome: harvest.OutcomeErrored, Status: harvest.RecordFailed,
		Errors: []harvest.RecordError{{Type: "StageError", Message: "second failure", Severity: harvest.SeverityError}}})
	require.NoError(t, err)
	require.True(t, fresh)
	require.Equal(t, want, countersOf(got))
	errs := recordErrors(t, s, job.ID)
	require.Len(t, errs, 1)
	require.Equal(t, "second failure", errs[0].Message)
	require.True(t, reopen(t, s, job.ID, "bad"), "an errored key can be replayed again")
}

// testOutcomeReopenStale: a key re-opened before StaleBefore (its replay was lost) is re-opened
// again; one re-opened since is not.
func testOutcomeReopenStale(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	stageFailure(t, s, newRecord(t, s, job, "bad"), false, "failure")
	finishJob(t, s, job.ID)
	p := &store.OutcomeReopenParams{JobID: job.ID, Key: harvest.IdentifierKey("bad"), StaleBefore: time.Now().Add(-time.Hour)}
	ok, err := s.OutcomeReopen(ctx, p)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = s.OutcomeReopen(ctx, p)
	require.NoError(t, err)
	require.False(t, ok, "re-opened within the hour: still in flight")
	p.StaleBefore = time.Now().Add(time.Hour)
	ok, err = s.OutcomeReopen(ctx, p)
	require.NoError(t, err)
	require.True(t, ok, "re-opened before StaleBefore: lost, re-opened again")
}

// testOutcomeReopenConcurrent: racing deliveries of a replayed record count exactly once.
func testOutcomeReopenConcurrent(t *testing.T, s store.Store) {
	job := newJob(t, s, newSource(t, s).ID)
	bad := newRecord(t, s, job, "bad")
	stageFailure(t, s, bad, false, "failure")
	finishJob(t, s, job.ID)
	require.True(t, reopen(t, s, job.ID, "bad"))
	require.Equal(t, 1, settleRacing(t, s, &store.OutcomeSettleParams{JobID: job.ID,
		Key: harvest.IdentifierKey("bad"), Identifier: "bad", RecordID: bad.ID, Outcome: harvest.OutcomeUpdated,
		Status: harvest.RecordSuccess, Validated: true}))
	got, err := s.JobGet(t.Context(), job.ID)
	require.NoError(t, err)
	require.Equal(t, counters{Total: 1, Updated: 1, Validated: 1, Settled: 1}, countersOf(got))
}
