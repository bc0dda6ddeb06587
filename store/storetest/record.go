package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

func testRecordInsert(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	p := &store.RecordInsertParams{
		ID:         uuid.NewString(),
		JobID:      job.ID,
		SourceID:   job.SourceID,
		Identifier: "a",
		Action:     harvest.ActionCreate,
		SourceHash: "5d41402abc4b2a76",
		SourceRaw:  "{ \"identifier\" : \"a\",\n  \"title\": \"Café\"  }", // kept byte for byte
		SchemaType: harvest.SchemaDCATUS11Federal,
	}
	rec, err := s.RecordInsert(ctx, p)
	require.NoError(t, err)
	require.Equal(t, &store.HarvestRecord{
		ID: p.ID, JobID: p.JobID, SourceID: p.SourceID, Identifier: p.Identifier, Action: p.Action,
		SourceHash: p.SourceHash, SourceRaw: p.SourceRaw, Status: harvest.RecordPending, CreatedAt: rec.CreatedAt,
		SchemaType: harvest.SchemaDCATUS11Federal,
	}, rec)
	require.False(t, rec.CreatedAt.IsZero())

	got, err := s.RecordGet(ctx, rec.ID)
	require.NoError(t, err)
	require.Equal(t, rec, got)
	require.Nil(t, got.SourceTransform, "no transform was stored")

	// A delete carries no source: empty hash and raw read back empty.
	del, err := s.RecordInsert(ctx, &store.RecordInsertParams{
		ID: uuid.NewString(), JobID: job.ID, SourceID: job.SourceID, Identifier: "b", Action: harvest.ActionDelete,
	})
	require.NoError(t, err)
	require.Equal(t, harvest.ActionDelete, del.Action)
	require.Empty(t, del.SourceHash)
	require.Empty(t, del.SourceRaw)
	require.Equal(t, harvest.RecordPending, del.Status)
}

// testRecordInsertIdempotent: a redelivered insert returns the stored row, status included.
func testRecordInsertIdempotent(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	rec := newRecord(t, s, job, "a")

	redelivered := &store.RecordInsertParams{
		ID: rec.ID, JobID: job.ID, SourceID: job.SourceID, Identifier: "other",
		Action: harvest.ActionUpdate, SourceHash: "other-hash", SourceRaw: "{}",
	}
	got, err := s.RecordInsert(ctx, redelivered)
	require.NoError(t, err)
	require.Equal(t, rec, got)

	settleRecord(t, s, rec, harvest.RecordSuccess)
	got, err = s.RecordInsert(ctx, redelivered)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordSuccess, got.Status, "a redelivery does not reset the status")
	require.Equal(t, rec.Identifier, got.Identifier)

	n, err := s.RecordCount(ctx, job.SourceID)
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

func testRecordGetNotFound(t *testing.T, s store.Store) {
	newRecord(t, s, newJob(t, s, newSource(t, s).ID), "a")
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		_, err := s.RecordGet(t.Context(), id)
		require.ErrorIs(t, err, store.ErrNotFound, "id %q", id)
	}
}

// testRecordLatest: the newest settled row of a key that can be compared against wins;
// pending and failed rows are skipped.
func testRecordLatest(t *testing.T, s store.Store) {
	src := newSource(t, s)
	latest := func() *store.HarvestRecord {
		t.Helper()
		rec, err := s.RecordLatest(t.Context(), &store.RecordLatestParams{SourceID: src.ID, Identifier: "a"})
		require.NoError(t, err)
		return rec
	}
	// inJob writes a record of "a" in a new job, settles it when status is not pending and
	// finishes the job; it returns the stored row.
	inJob := func(status harvest.RecordStatus) *store.HarvestRecord {
		t.Helper()
		job := newJob(t, s, src.ID)
		newRecord(t, s, job, "other")
		rec := newRecord(t, s, job, "a")
		if status != harvest.RecordPending {
			settleRecord(t, s, rec, status)
		}
		finishJob(t, s, job.ID)
		got, err := s.RecordGet(t.Context(), rec.ID)
		require.NoError(t, err)
		return got
	}

	success := inJob(harvest.RecordSuccess)
	require.Equal(t, success, latest())
	invalid := inJob(harvest.RecordErrorValidation)
	require.Equal(t, invalid, latest())
	untransformed := inJob(harvest.RecordErrorTransform)
	require.Equal(t, untransformed, latest())
	inJob(harvest.RecordPending)
	require.Equal(t, untransformed, latest(), "pending rows are skipped")
	inJob(harvest.RecordFailed)
	require.Equal(t, untransformed, latest(), "failed rows are skipped")
	newest := inJob(harvest.RecordSuccess)
	require.Equal(t, newest, latest())
}

func testRecordLatestNotFound(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	_, err := s.RecordLatest(ctx, &store.RecordLatestParams{SourceID: src.ID, Identifier: "a"})
	require.ErrorIs(t, err, store.ErrNotFound, "no rows")

	job := newJob(t, s, src.ID)
	newRecord(t, s, job, "a")
	settleRecord(t, s, newRecord(t, s, job, "b"), harvest.RecordFailed)
	settleRecord(t, s, newRecord(t, s, job, "c"), harvest.RecordSuccess)
	for _, identifier := range []string{"a", "b", "d"} {
		_, err = s.RecordLatest(ctx, &store.RecordLatestParams{SourceID: src.ID, Identifier: identifier})
		require.ErrorIs(t, err, store.ErrNotFound, identifier)
	}
}

// testRecordLatestOtherSource: another source's rows of the same identifier do not count.
func testRecordLatestOtherSource(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	rec := newRecord(t, s, newJob(t, s, src.ID), "a")
	settleRecord(t, s, rec, harvest.RecordSuccess)
	other := newSource(t, s)
	settleRecord(t, s, newRecord(t, s, newJob(t, s, other.ID), "a"), harvest.RecordSuccess)

	got, err := s.RecordLatest(ctx, &store.RecordLatestParams{SourceID: src.ID, Identifier: "a"})
	require.NoError(t, err)
	require.Equal(t, rec.ID, got.ID)

	_, err = s.RecordLatest(ctx, &store.RecordLatestParams{SourceID: newSource(t, s).ID, Identifier: "a"})
	require.ErrorIs(t, err, store.ErrNotFound)
}

// testRecordCount: every row of the source counts, whatever its status or job.
func testRecordCount(t *testing.T, s store.Store) {
	count := func(sourceID string) int {
		t.Helper()
		n, err := s.RecordCount(t.Context(), sourceID)
		require.NoError(t, err)
		return n
	}
	src := newSource(t, s)
	require.Equal(t, 0, count(src.ID))

	first := newJob(t, s, src.ID)
	newRecord(t, s, first, "a")
	settleRecord(t, s, newRecord(t, s, first, "b"), harvest.RecordSuccess)
	finishJob(t, s, first.ID)
	second := newJob(t, s, src.ID)
	newRecord(t, s, second, "a")
	newRecord(t, s, newJob(t, s, newSource(t, s).ID), "a")

	require.Equal(t, 3, count(src.ID))
}

// testRecordErrorListOrder: a job's record errors come ordered by identifier, then message.
func testRecordErrorListOrder(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	other := newJob(t, s, newSource(t, s).ID)
	settleErrored(t, s, job.ID, "c", "beta", "alpha")
	settleErrored(t, s, other.ID, "a", "alpha")
	settleErrored(t, s, job.ID, "a", "gamma")
	settleErrored(t, s, job.ID, "b", "alpha")

	type key struct{ identifier, message string }
	var got []key
	for _, e := range recordErrors(t, s, job.ID) {
		require.Equal(t, job.ID, e.JobID)
		got = append(got, key{e.Identifier, e.Message})
	}
	require.Equal(t, []key{{"a", "gamma"}, {"b", "alpha"}, {"c", "alpha"}, {"c", "beta"}}, got)

	errs, total, err := s.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: newJob(t, s, newSource(t, s).ID).ID})
	require.NoError(t, err)
	require.Empty(t, errs)
	require.Zero(t, total)
}

// settleErrored settles identifier as errored in the job with one error row per message.
func settleErrored(t *testing.T, s store.Store, jobID, identifier string, messages ...string) {
	t.Helper()
	p := &store.OutcomeSettleParams{JobID: jobID, Key: identifier, Identifier: identifier, Outcome: harvest.OutcomeErrored}
	for _, m := range messages {
		p.Errors = append(p.Errors, harvest.RecordError{Type: "ValidationError", Message: m, Severity: harvest.SeverityError})
	}
	_, _, err := s.OutcomeSettle(t.Context(), p)
	require.NoError(t, err)
}

// testRecordErrorListPage: a page of the ordered rows, with the job's total; Limit 0 is all.
func testRecordErrorListPage(t *testing.T, s store.Store) {
	job := newJob(t, s, newSource(t, s).ID)
	settleErrored(t, s, newJob(t, s, newSource(t, s).ID).ID, "a", "other job")
	var want []string
	for i := range store.DefaultLimit + 5 {
		id := fmt.Sprintf("id-%03d", i)
		settleErrored(t, s, job.ID, id, "m")
		want = append(want, id)
	}
	page := func(limit, offset int) ([]string, int) {
		t.Helper()
		errs, total, err := s.RecordErrorList(t.Context(), &store.RecordErrorListParams{
			JobID: job.ID, PageParams: store.PageParams{Limit: limit, Offset: offset},
		})
		require.NoError(t, err)
		var ids []string
		for _, e := range errs {
			ids = append(ids, e.Identifier)
		}
		return ids, total
	}

	ids, total := page(0, 0)
	require.Equal(t, want, ids, "Limit 0 is every row")
	require.Equal(t, len(want), total)
	ids, total = page(10, 0)
	require.Equal(t, want[:10], ids)
	require.Equal(t, len(want), total)
	ids, total = page(3, 100)
	require.Equal(t, want[100:103], ids)
	require.Equal(t, len(want), total)
	ids, total = page(0, 100)
	require.Equal(t, want[100:], ids, "Limit 0 after an offset is the rest")
	require.Equal(t, len(want), total)
	ids, total = page(10, len(want))
	require.Empty(t, ids, "past the end")
	require.Equal(t, len(want), total)
}

// testRecordErrorStream: every row of the job in RecordErrorList's order; fn's error stops the
// stream and is returned.
func testRecordErrorStream(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	settleErrored(t, s, job.ID, "c", "beta", "alpha")
	settleErrored(t, s, newJob(t, s, newSource(t, s).ID).ID, "a", "other job")
	settleErrored(t, s, job.ID, "a", "gamma")
	settleErrored(t, s, job.ID, "b", "alpha")

	var streamed []*store.RecordError
	err := s.RecordErrorStream(ctx, job.ID, func(e *store.RecordError) error {
		streamed = append(streamed, e)
		return nil
	})
	require.NoError(t, err)
	require.Len(t, streamed, 4)
	require.Equal(t, recordErrors(t, s, job.ID), streamed)

	stop := errors.New("stop")
	calls := 0
	err = s.RecordErrorStream(ctx, job.ID, func(*store.RecordError) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	require.ErrorIs(t, err, stop)
	require.Equal(t, 2, calls)

	err = s.RecordErrorStream(ctx, uuid.NewString(), func(*store.RecordError) error {
		t.Fatal("no rows")
		return nil
	})
	require.NoError(t, err)
}

// testOutcomeSettleTransform: the DCAT-US that TRANSFORM made of a record is stored as its
// source_transform when its outcome settles, with its status, by OutcomeSettle and by
// OutcomeSettleBatch alike, also for an errored outcome; an outcome without one keeps the row's
// source_transform (none), and a key settled again changes nothing.
func testOutcomeSettleTransform(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	dcat := func(id string) json.RawMessage {
		return json.RawMessage(`{"identifier":"` + id + `","title":"A","keyword":["x"]}`)
	}
	a := newRecord(t, s, job, "https://waf.example.gov/a.xml")
	_, fresh, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "id:a", Identifier: a.Identifier,
		RecordID: a.ID, Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess, SourceTransform: dcat(a.Identifier)})
	require.NoError(t, err)
	require.True(t, fresh)
	got, err := s.RecordGet(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordSuccess, got.Status)
	require.JSONEq(t, string(dcat(a.Identifier)), string(got.SourceTransform))
	require.Equal(t, a.SourceRaw, got.SourceRaw, "the source is kept as it was")

	b := newRecord(t, s, job, "https://waf.example.gov/b.xml")
	c := newRecord(t, s, job, "https://waf.example.gov/c.xml")
	res, err := s.OutcomeSettleBatch(ctx, []*store.OutcomeSettleParams{
		{JobID: job.ID, Key: "id:b", Identifier: b.Identifier, RecordID: b.ID, Outcome: harvest.OutcomeErrored,
			Status: harvest.RecordErrorValidation, SourceTransform: dcat(b.Identifier),
			Errors: []harvest.RecordError{{Type: "ValidationError", Message: "$: bad", Severity: harvest.SeverityError}}},
		{JobID: job.ID, Key: "id:c", Identifier: c.Identifier, RecordID: c.ID, Outcome: harvest.OutcomeAdded,
			Status: harvest.RecordSuccess},
		{JobID: job.ID, Key: "id:a", Identifier: a.Identifier, RecordID: a.ID, Outcome: harvest.OutcomeErrored,
			Status: harvest.RecordFailed, SourceTransform: dcat("other")},
	})
	require.NoError(t, err)
	require.Len(t, res, 3)
	for _, r := range res {
		require.NoError(t, r.Err)
	}
	require.False(t, res[2].Fresh, "a settled key changes nothing")
	got, err = s.RecordGet(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordErrorValidation, got.Status)
	require.JSONEq(t, string(dcat(b.Identifier)), string(got.SourceTransform), "an invalid record keeps what TRANSFORM made")
	got, err = s.RecordGet(ctx, c.ID)
	require.NoError(t, err)
	require.Nil(t, got.SourceTransform, "a DCAT-US record has none")
	got, err = s.RecordGet(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordSuccess, got.Status)
	require.JSONEq(t, string(dcat(a.Identifier)), string(got.SourceTransform))
}
