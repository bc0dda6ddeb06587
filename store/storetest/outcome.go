package storetest

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testOutcomeSettleOnce: a key already settled for the job changes nothing, whatever it carries.
func testOutcomeSettleOnce(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	rec := newRecord(t, s, job, "a")

	got, fresh, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{
		JobID: job.ID, Key: "a", Identifier: "a", RecordID: rec.ID,
		Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess, Validated: true,
	})
	require.NoError(t, err)
	require.True(t, fresh)
	require.Equal(t, counters{Added: 1, Validated: 1, Settled: 1}, countersOf(got))

	again, fresh, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{
		JobID: job.ID, Key: "a", Identifier: "a", RecordID: rec.ID,
		Outcome: harvest.OutcomeErrored, Status: harvest.RecordErrorValidation, Validated: true,
		Errors: []harvest.RecordError{{Type: "ValidationError", Message: "title missing", Severity: harvest.SeverityError}},
	})
	require.NoError(t, err)
	require.False(t, fresh)
	require.Equal(t, countersOf(got), countersOf(again), "a second settle counts nothing")
	current, err := s.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, current, again, "the job is returned as it is")

	stored, err := s.RecordGet(ctx, rec.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordSuccess, stored.Status, "a second settle sets no status")
	require.Empty(t, recordErrors(t, s, job.ID), "a second settle writes no error rows")
}

// testOutcomeSettleCounters: each outcome has its counter; total is their sum after finish.
func testOutcomeSettleCounters(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	settles := []struct {
		key       string
		outcome   harvest.Outcome
		validated bool
	}{
		{"a", harvest.OutcomeAdded, true},
		{"b", harvest.OutcomeAdded, true},
		{"c", harvest.OutcomeUpdated, true},
		{"d", harvest.OutcomeDeleted, false},
		{"e", harvest.OutcomeUnchanged, false},
		{"f", harvest.OutcomeErrored, true},
		{"g", harvest.OutcomeErrored, false},
	}
	var got *store.HarvestJob
	for _, st := range settles {
		var fresh bool
		var err error
		got, fresh, err = s.OutcomeSettle(ctx, &store.OutcomeSettleParams{
			JobID: job.ID, Key: st.key, Identifier: st.key, Outcome: st.outcome, Validated: st.validated,
		})
		require.NoError(t, err)
		require.True(t, fresh, st.key)
	}
	want := counters{Added: 2, Updated: 1, Deleted: 1, Unchanged: 1, Errored: 2, Validated: 4, Settled: 7}
	require.Equal(t, want, countersOf(got))

	done := finishJob(t, s, job.ID)
	want.Total = 7
	require.Equal(t, want, countersOf(done))
	require.Equal(t, done.Total, done.Added+done.Updated+done.Deleted+done.Unchanged+done.Errored)
}

// testOutcomeSettlePerJob: the ledger is per job; the same key counts once in each job.
func testOutcomeSettlePerJob(t *testing.T, s store.Store) {
	first := newJob(t, s, newSource(t, s).ID)
	second := newJob(t, s, newSource(t, s).ID)
	for _, job := range []*store.HarvestJob{first, second} {
		got, fresh := settle(t, s, job.ID, "a", harvest.OutcomeAdded)
		require.True(t, fresh)
		require.Equal(t, counters{Added: 1, Settled: 1}, countersOf(got))
	}
}

// testOutcomeSettleErrors: error rows are written with the settle, with or without a record.
func testOutcomeSettleErrors(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	rec := newRecord(t, s, job, "b")
	settles := []*store.OutcomeSettleParams{
		{JobID: job.ID, Key: "b", Identifier: "b", RecordID: rec.ID,
			Outcome: harvest.OutcomeErrored, Status: harvest.RecordErrorValidation,
			Errors: []harvest.RecordError{
				{Type: "ValidationError", Message: "title missing", Severity: harvest.SeverityError},
				{Type: "ValidationWarning", Message: "description short", Severity: harvest.SeverityWarning},
			}},
		{JobID: job.ID, Key: "a", Identifier: "a", Outcome: harvest.OutcomeErrored,
			Errors: []harvest.RecordError{{Type: "DuplicateIdentifier", Message: "listed twice", Severity: harvest.SeverityError}}},
		{JobID: job.ID, Key: "listing/3", Outcome: harvest.OutcomeErrored,
			Errors: []harvest.RecordError{{Type: "ParseError", Message: "not an object", Severity: harvest.SeverityError}}},
	}
	var got *store.HarvestJob
	for _, p := range settles {
		var fresh bool
		var err error
		got, fresh, err = s.OutcomeSettle(ctx, p)
		require.NoError(t, err)
		require.True(t, fresh)
	}
	require.Equal(t, counters{Errored: 3, Settled: 3}, countersOf(got))

	require.Equal(t, []*store.RecordError{
		{JobID: job.ID, Type: "ParseError", Message: "not an object", Severity: harvest.SeverityError},
		{JobID: job.ID, Identifier: "a", Type: "DuplicateIdentifier", Message: "listed twice", Severity: harvest.SeverityError},
		{JobID: job.ID, RecordID: rec.ID, Identifier: "b", Type: "ValidationWarning", Message: "description short", Severity: harvest.SeverityWarning},
		{JobID: job.ID, RecordID: rec.ID, Identifier: "b", Type: "ValidationError", Message: "title missing", Severity: harvest.SeverityError},
	}, recordErrors(t, s, job.ID))

	stored, err := s.RecordGet(ctx, rec.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordErrorValidation, stored.Status)
}

// testOutcomeSettleRecordStatus: the record's status becomes p.Status; nothing else changes.
func testOutcomeSettleRecordStatus(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	for _, status := range []harvest.RecordStatus{
		harvest.RecordSuccess, harvest.RecordErrorValidation, harvest.RecordErrorTransform, harvest.RecordFailed,
	} {
		rec := newRecord(t, s, job, string(status))
		require.Equal(t, harvest.RecordPending, rec.Status)
		settleRecord(t, s, rec, status)

		got, err := s.RecordGet(ctx, rec.ID)
		require.NoError(t, err)
		want := *rec
		want.Status = status
		require.Equal(t, &want, got)
	}
}

// testOutcomeSettleConcurrent: racing redeliveries of one outcome count it once.
func testOutcomeSettleConcurrent(t *testing.T, s store.Store) {
	job := newJob(t, s, newSource(t, s).ID)
	require.Equal(t, 1, settleRacing(t, s, &store.OutcomeSettleParams{
		JobID: job.ID, Key: "a", Identifier: "a", Outcome: harvest.OutcomeAdded,
		Errors: []harvest.RecordError{{Type: harvest.TypeValidationWarning, Message: "w", Severity: harvest.SeverityWarning}},
	}))

	got, err := s.JobGet(t.Context(), job.ID)
	require.NoError(t, err)
	require.Equal(t, counters{Added: 1, Settled: 1}, countersOf(got))
	require.Len(t, recordErrors(t, s, job.ID), 1)
}

// testOutcomeSettleAfterFinish: a finished job's counts are final; late outcomes change nothing.
func testOutcomeSettleAfterFinish(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	for _, end := range []string{"fail", "complete"} {
		job := newJob(t, s, src.ID)
		rec := newRecord(t, s, job, "a")
		settle(t, s, job.ID, "b", harvest.OutcomeAdded)
		if end == "fail" {
			_, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "CancelledJob", Message: "stop"})
			require.NoError(t, err)
		} else {
			_, err := s.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 1})
			require.NoError(t, err)
			_, finished, err := s.JobFinish(ctx, job.ID)
			require.NoError(t, err)
			require.True(t, finished)
		}
		before, err := s.JobGet(ctx, job.ID)
		require.NoError(t, err)
		beforeRec, err := s.RecordGet(ctx, rec.ID) // pending, or error when JobFail ended it
		require.NoError(t, err)
		beforeErrs := recordErrors(t, s, job.ID) // JobFail's CancelledJob row of the pending record

		after, fresh, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "a", Identifier: "a",
			RecordID: rec.ID, Outcome: harvest.OutcomeErrored, Status: harvest.RecordFailed,
			Errors: []harvest.RecordError{{Type: "StageError", Message: "late", Severity: harvest.SeverityError}}})
		require.NoError(t, err, end)
		require.False(t, fresh, "%s: a late outcome is not counted", end)
		require.Equal(t, countersOf(before), countersOf(after), end)
		require.Equal(t, before.Total, after.Added+after.Updated+after.Deleted+after.Unchanged+after.Errored, end)
		stored, err := s.RecordGet(ctx, rec.ID)
		require.NoError(t, err)
		require.Equal(t, beforeRec.Status, stored.Status, "%s: a late outcome sets no status", end)
		require.Equal(t, beforeErrs, recordErrors(t, s, job.ID), "%s: a late outcome writes no error row", end)
	}
}

// settleRacing settles copies of p from 8 goroutines at once and returns how many of them
// settled it fresh.
func settleRacing(t *testing.T, s store.Store, p *store.OutcomeSettleParams) int {
	t.Helper()
	return racing(t, func() (bool, error) {
		pc := *p
		_, fresh, err := s.OutcomeSettle(t.Context(), &pc)
		return fresh, err
	})
}

// racing calls fn from 8 goroutines at once, requires no error and returns how many calls
// said true.
func racing(t *testing.T, fn func() (bool, error)) int {
	t.Helper()
	const n = 8
	says := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { says[i], errs[i] = fn() })
	}
	wg.Wait()
	count := 0
	for i := range n {
		require.NoError(t, errs[i])
		if says[i] {
			count++
		}
	}
	return count
}
