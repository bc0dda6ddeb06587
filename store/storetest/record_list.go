package storetest

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testRecordList: a job's records by identifier, filtered by action, paged, without bodies;
// another job's records are not listed.
func testRecordList(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	for _, r := range []struct {
		id     string
		action harvest.Action
	}{{"c", harvest.ActionUpdate}, {"a", harvest.ActionCreate}, {"d", harvest.ActionDelete}, {"b", harvest.ActionCreate}} {
		_, err := s.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: r.id, Action: r.action, SourceHash: "h-" + r.id, SourceRaw: string(dcat(r.id))})
		require.NoError(t, err)
	}
	other := newJob(t, s, newSource(t, s).ID)
	newRecord(t, s, other, "a")

	idents := func(recs []*store.HarvestRecord) []string {
		var out []string
		for _, r := range recs {
			out = append(out, r.Identifier)
		}
		return out
	}
	recs, total, err := s.RecordList(ctx, &store.RecordListParams{JobID: job.ID})
	require.NoError(t, err)
	require.Equal(t, 4, total)
	require.Equal(t, []string{"a", "b", "c", "d"}, idents(recs), "by identifier")
	require.Equal(t, harvest.ActionCreate, recs[0].Action)
	require.Equal(t, job.ID, recs[0].JobID)
	require.Equal(t, src.ID, recs[0].SourceID)
	require.Equal(t, "h-a", recs[0].SourceHash)
	require.Equal(t, harvest.RecordPending, recs[0].Status)
	require.False(t, recs[0].CreatedAt.IsZero())
	require.Empty(t, recs[0].SourceRaw, "no body")
	require.Nil(t, recs[0].SourceTransform)

	recs, total, err = s.RecordList(ctx, &store.RecordListParams{JobID: job.ID, Action: harvest.ActionCreate,
		PageParams: store.PageParams{Limit: 1, Offset: 1}})
	require.NoError(t, err)
	require.Equal(t, 2, total, "the creates")
	require.Equal(t, []string{"b"}, idents(recs))
	recs, total, err = s.RecordList(ctx, &store.RecordListParams{JobID: job.ID, Action: harvest.ActionUpdate})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.Equal(t, []string{"c"}, idents(recs))

	recs, total, err = s.RecordList(ctx, &store.RecordListParams{JobID: uuid.NewString()})
	require.NoError(t, err)
	require.Zero(t, total)
	require.Empty(t, recs)
}

// testRecordErrorMessages: a job's warnings grouped by type and message, the most frequent
// first, each with its first identifiers; the errors (another severity) are not counted; a
// message filters RecordErrorList.
func testRecordErrorMessages(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	warn := func(msg string) harvest.RecordError {
		return harvest.RecordError{Type: "ValidationWarning", Message: msg, Severity: harvest.SeverityWarning}
	}
	settleWith := func(key string, outcome harvest.Outcome, errs ...harvest.RecordError) {
		t.Helper()
		_, _, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: key, Identifier: key,
			Outcome: outcome, Errors: errs})
		require.NoError(t, err)
	}
	rec := newRecord(t, s, job, "r1")
	_, _, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "r1", Identifier: "r1", RecordID: rec.ID,
		Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess, Errors: []harvest.RecordError{warn("no keyword")}})
	require.NoError(t, err)
	settleWith("r4", harvest.OutcomeAdded, warn("no keyword"))
	settleWith("r3", harvest.OutcomeAdded, warn("no keyword"), warn("issued after modified"))
	settleWith("r2", harvest.OutcomeAdded, warn("no keyword"))
	settleWith("r5", harvest.OutcomeErrored, harvest.RecordError{Type: "ValidationError", Message: "no keyword",
		Severity: harvest.SeverityError})

	got, total, err := s.RecordErrorMessages(ctx, &store.RecordErrorMessagesParams{JobID: job.ID,
		Severity: harvest.SeverityWarning, Examples: 3})
	require.NoError(t, err)
	require.Equal(t, 2, total)
	require.Equal(t, []*store.RecordErrorMessage{
		{Type: "ValidationWarning", Message: "no keyword", Severity: harvest.SeverityWarning, Count: 4,
			Examples: []store.RecordErrorExample{{Identifier: "r1", RecordID: rec.ID}, {Identifier: "r2"}, {Identifier: "r3"}}},
		{Type: "ValidationWarning", Message: "issued after modified", Severity: harvest.SeverityWarning, Count: 1,
			Examples: []store.RecordErrorExample{{Identifier: "r3"}}},
	}, got)

	got, total, err = s.RecordErrorMessages(ctx, &store.RecordErrorMessagesParams{JobID: job.ID,
		Severity: harvest.SeverityWarning, Limit: 1})
	require.NoError(t, err)
	require.Equal(t, 2, total, "every group counted")
	require.Equal(t, []*store.RecordErrorMessage{{Type: "ValidationWarning", Message: "no keyword",
		Severity: harvest.SeverityWarning, Count: 4}}, got, "the first group, without examples")

	got, total, err = s.RecordErrorMessages(ctx, &store.RecordErrorMessagesParams{JobID: job.ID,
		Severity: harvest.SeverityError, Examples: 5})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.Len(t, got, 1)
	require.Equal(t, 1, got[0].Count)
	require.Equal(t, []store.RecordErrorExample{{Identifier: "r5"}}, got[0].Examples)

	rows, n, err := s.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: job.ID, Severity: harvest.SeverityWarning,
		Message: "no keyword", PageParams: store.PageParams{Limit: 2, Offset: 2}})
	require.NoError(t, err)
	require.Equal(t, 4, n, "the rows of the message")
	require.Len(t, rows, 2)
	require.Equal(t, "r3", rows[0].Identifier)
	require.Equal(t, "r4", rows[1].Identifier)
}
