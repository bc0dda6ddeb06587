package storetest

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testOutcomeSettleCarriesErrors: an errored outcome with CarriedFromRecordID copies that
// record's own error rows into its job, marked with the job that found them, once (a repeated
// settle copies nothing more); a third job carrying the same record copies the original rows,
// not the second job's copies; an unknown record copies nothing.
func testOutcomeSettleCarriesErrors(t *testing.T, s store.Store) {
	ctx := t.Context()
	src, first, rec := erroredRecord(t, s,
		harvest.RecordError{Type: "ValidationError", Message: "title missing", Severity: harvest.SeverityError},
		harvest.RecordError{Type: "TransformWarning", Message: "no modified date", Severity: harvest.SeverityWarning})
	finishJob(t, s, first.ID)

	carried := func(jobID string) []*store.RecordError {
		return []*store.RecordError{
			{JobID: jobID, RecordID: rec.ID, Identifier: "bad", Type: "TransformWarning", Message: "no modified date",
				Severity: harvest.SeverityWarning, CarriedFromJobID: first.ID},
			{JobID: jobID, RecordID: rec.ID, Identifier: "bad", Type: "ValidationError", Message: "title missing",
				Severity: harvest.SeverityError, CarriedFromJobID: first.ID},
		}
	}
	for range 2 {
		second := newJob(t, s, src.ID)
		p := &store.OutcomeSettleParams{JobID: second.ID, Key: "bad", Identifier: "bad",
			Outcome: harvest.OutcomeErrored, CarriedFromRecordID: rec.ID}
		job, fresh, err := s.OutcomeSettle(ctx, p)
		require.NoError(t, err)
		require.True(t, fresh)
		require.Equal(t, counters{Errored: 1, Settled: 1}, countersOf(job))
		_, fresh, err = s.OutcomeSettle(ctx, p)
		require.NoError(t, err)
		require.False(t, fresh, "redelivered")
		require.Equal(t, carried(second.ID), recordErrors(t, s, second.ID), "copied once, marked as carried")
		finishJob(t, s, second.ID) // the next pass is a third job, carrying from the first again
	}
	require.Len(t, recordErrors(t, s, first.ID), 2, "the job that found them keeps its own rows")
	for _, e := range recordErrors(t, s, first.ID) {
		require.Empty(t, e.CarriedFromJobID, "found by its own job")
	}
	stored, err := s.RecordGet(ctx, rec.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordErrorValidation, stored.Status, "the carried record is left as it is")

	// A batch carries and settles as one-by-one does; an unknown or malformed record copies nothing.
	batchJob := newJob(t, s, src.ID)
	res, err := s.OutcomeSettleBatch(ctx, []*store.OutcomeSettleParams{
		{JobID: batchJob.ID, Key: "bad", Identifier: "bad", Outcome: harvest.OutcomeErrored, CarriedFromRecordID: rec.ID,
			Errors: []harvest.RecordError{{Type: "Note", Message: "own", Severity: harvest.SeverityWarning}}},
		{JobID: batchJob.ID, Key: "gone", Identifier: "gone", Outcome: harvest.OutcomeErrored, CarriedFromRecordID: uuid.NewString()},
		{JobID: batchJob.ID, Key: "odd", Identifier: "odd", Outcome: harvest.OutcomeErrored, CarriedFromRecordID: "not-a-uuid"},
	})
	require.NoError(t, err)
	for _, r := range res {
		require.NoError(t, r.Err)
		require.True(t, r.Fresh)
	}
	require.Equal(t, counters{Errored: 3, Settled: 3}, countersOf(res[2].Job))
	want := append([]*store.RecordError{{JobID: batchJob.ID, Identifier: "bad", Type: "Note", Message: "own",
		Severity: harvest.SeverityWarning}}, carried(batchJob.ID)...)
	require.ElementsMatch(t, want, recordErrors(t, s, batchJob.ID))
}

// testOutcomeSettleCarriesJobErrors: OutcomeErroredStream lists a job's errored keys; an
// outcome with CarriedFromJobID copies that job's rows of the same key, keeping their
// identifier, record and origin (a row that job had carried names the job that found it).
func testOutcomeSettleCarriesJobErrors(t *testing.T, s store.Store) {
	ctx := t.Context()
	src, first, rec := erroredRecord(t, s,
		harvest.RecordError{Type: "ValidationError", Message: "title missing", Severity: harvest.SeverityError})
	_, _, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: first.ID, Key: "listing/3", Identifier: "dup",
		Outcome: harvest.OutcomeErrored,
		Errors:  []harvest.RecordError{{Type: "DuplicateIdentifier", Message: "repeats", Severity: harvest.SeverityError}}})
	require.NoError(t, err)
	settle(t, s, first.ID, "good", harvest.OutcomeAdded)
	finishJob(t, s, first.ID)

	errored := func(jobID string) []string {
		var keys []string
		require.NoError(t, s.OutcomeErroredStream(ctx, jobID, func(k string) error { keys = append(keys, k); return nil }))
		return keys
	}
	require.Equal(t, []string{"bad", "listing/3"}, errored(first.ID))
	require.Empty(t, errored(uuid.NewString()))

	from := first.ID
	for range 2 {
		job := newJob(t, s, src.ID)
		for _, key := range errored(from) {
			_, fresh, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: key,
				Outcome: harvest.OutcomeErrored, CarriedFromJobID: from})
			require.NoError(t, err)
			require.True(t, fresh)
		}
		require.Equal(t, []*store.RecordError{
			{JobID: job.ID, RecordID: rec.ID, Identifier: "bad", Type: "ValidationError", Message: "title missing",
				Severity: harvest.SeverityError, CarriedFromJobID: first.ID},
			{JobID: job.ID, Identifier: "dup", Type: "DuplicateIdentifier", Message: "repeats",
				Severity: harvest.SeverityError, CarriedFromJobID: first.ID},
		}, recordErrors(t, s, job.ID))
		require.Equal(t, counters{Total: 2, Errored: 2, Settled: 2}, countersOf(finishJob(t, s, job.ID)))
		from = job.ID // the next job carries the rows this one carried
	}
}

// testOutcomeSettleClipsErrorIdentifier (issue 25 D7): an error row keeps at most
// harvest.MaxIdentifierBytes of its identifier (harvest.ClipIdentifier), also when it is
// carried into a later job, so that a 200 MB IRI is not served whole by the record_errors API.
func testOutcomeSettleClipsErrorIdentifier(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	long := "http://example.org/" + strings.Repeat("x", 100_000)
	rec := newRecord(t, s, first, "long")
	_, _, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: first.ID, Key: harvest.IdentifierKey(long),
		Identifier: long, RecordID: rec.ID, Outcome: harvest.OutcomeErrored, Status: harvest.RecordErrorValidation,
		Errors: []harvest.RecordError{{Type: "IdentifierTooLong", Message: "too long", Severity: harvest.SeverityError}}})
	require.NoError(t, err)
	finishJob(t, s, first.ID)
	second := newJob(t, s, src.ID)
	_, _, err = s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: second.ID, Key: harvest.IdentifierKey(long),
		Identifier: long, Outcome: harvest.OutcomeErrored, CarriedFromRecordID: rec.ID})
	require.NoError(t, err)
	for _, job := range []string{first.ID, second.ID} {
		rows, total, err := s.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: job})
		require.NoError(t, err)
		require.Equal(t, 1, total)
		require.Equal(t, harvest.ClipIdentifier(long), rows[0].Identifier)
		require.LessOrEqual(t, len(rows[0].Identifier), harvest.MaxIdentifierBytes+len("…(100019 bytes)"))
	}
}

// erroredRecord makes a source, a job of it and its record "bad", settled errored (failed
// validation) with the error rows errs.
func erroredRecord(t *testing.T, s store.Store, errs ...harvest.RecordError) (*store.Source, *store.HarvestJob, *store.HarvestRecord) {
	t.Helper()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	rec := newRecord(t, s, job, "bad")
	_, fresh, err := s.OutcomeSettle(t.Context(), &store.OutcomeSettleParams{JobID: job.ID, Key: "bad", Identifier: "bad",
		RecordID: rec.ID, Outcome: harvest.OutcomeErrored, Status: harvest.RecordErrorValidation, Errors: errs})
	require.NoError(t, err)
	require.True(t, fresh)
	return src, job, rec
}
