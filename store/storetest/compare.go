package storetest

import (
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// compareOneByOne is what RecordCompareBatch must answer for k: RecordGet's, RecordLatest's and
// DatasetGet's answers, one query each.
func compareOneByOne(t *testing.T, s store.Store, k store.RecordCompareKey) *store.RecordCompare {
	t.Helper()
	ctx := t.Context()
	var c store.RecordCompare
	rec, err := s.RecordGet(ctx, k.RecordID)
	if !errors.Is(err, store.ErrNotFound) {
		require.NoError(t, err)
		c.Stored = &store.RecordCompareStored{JobID: rec.JobID, Action: rec.Action, Status: rec.Status,
			SourceHash: rec.SourceHash}
	}
	latest, err := s.RecordLatest(ctx, &store.RecordLatestParams{SourceID: k.SourceID, Identifier: k.Identifier})
	if !errors.Is(err, store.ErrNotFound) {
		require.NoError(t, err)
		c.Latest = &store.RecordCompareLatest{ID: latest.ID, Status: latest.Status, SourceHash: latest.SourceHash,
			Action: latest.Action, SchemaType: latest.SchemaType}
	}
	_, err = s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: k.SourceID, Identifier: k.Identifier})
	if !errors.Is(err, store.ErrNotFound) {
		require.NoError(t, err)
		c.DatasetLive = true
	}
	return &c
}

// testRecordCompareBatch: one batch answers, per key and in the keys' order, what RecordGet,
// RecordLatest and DatasetGet answer one at a time.
func testRecordCompareBatch(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	older := newJob(t, s, src.ID)
	settleRecord(t, s, newRecord(t, s, older, "settled"), harvest.RecordSuccess) // superseded below
	finishJob(t, s, older.ID)
	old := newJob(t, s, src.ID)
	newDataset(t, s, old, "live") // a pending record and a live dataset
	settled, err := s.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: old.ID,
		SourceID: src.ID, Identifier: "settled", Action: harvest.ActionUpdate, SourceHash: "h-settled",
		SchemaType: harvest.SchemaDCATUS11NonFederal})
	require.NoError(t, err)
	settleRecord(t, s, settled, harvest.RecordSuccess)
	invalid := newRecord(t, s, old, "invalid")
	settleRecord(t, s, invalid, harvest.RecordErrorValidation)
	settleRecord(t, s, newRecord(t, s, old, "failed"), harvest.RecordFailed)
	finishJob(t, s, old.ID)

	job := newJob(t, s, src.ID)
	mine := newRecord(t, s, job, "settled") // this job's own pending record of a known key
	other := newSource(t, s)
	settleRecord(t, s, newRecord(t, s, newJob(t, s, other.ID), "new"), harvest.RecordSuccess)

	key := func(identifier, recordID string) store.RecordCompareKey {
		return store.RecordCompareKey{SourceID: src.ID, Identifier: identifier, RecordID: recordID}
	}
	keys := []store.RecordCompareKey{
		key("settled", mine.ID),
		key("new", uuid.NewString()), // only another source knows it
		key("live", uuid.NewString()),
		key("invalid", "not-a-uuid"),
		key("failed", uuid.NewString()),
		key("settled", mine.ID), // a key may come twice
		{SourceID: "not-a-uuid", Identifier: "live", RecordID: uuid.NewString()},
	}
	got, err := s.RecordCompareBatch(ctx, keys)
	require.NoError(t, err)
	require.Len(t, got, len(keys))
	for i, k := range keys {
		require.Equal(t, compareOneByOne(t, s, k), got[i], "key %d %+v", i, k)
	}

	// What they answer, spelled out.
	require.Equal(t, &store.RecordCompare{
		Stored: &store.RecordCompareStored{JobID: job.ID, Action: harvest.ActionCreate, Status: harvest.RecordPending,
			SourceHash: "hash-settled"},
		Latest: &store.RecordCompareLatest{ID: settled.ID, Status: harvest.RecordSuccess, SourceHash: "h-settled",
			Action: harvest.ActionUpdate, SchemaType: harvest.SchemaDCATUS11NonFederal},
	}, got[0])
	require.Equal(t, &store.RecordCompare{}, got[1], "another source's record is not this one's")
	require.Equal(t, &store.RecordCompare{DatasetLive: true}, got[2], "a pending record is not comparable")
	require.Equal(t, &store.RecordCompare{Latest: &store.RecordCompareLatest{ID: invalid.ID,
		Status: harvest.RecordErrorValidation, SourceHash: "hash-invalid", Action: harvest.ActionCreate}}, got[3],
		"an invalid record is comparable, and its status says so")
	require.Equal(t, &store.RecordCompare{}, got[4], "a failed record is not comparable")
	require.Equal(t, &store.RecordCompare{}, got[6], "a malformed source id matches nothing")

	none, err := s.RecordCompareBatch(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, none)
}

// testRecordCompareBatchLarge: a batch over a backend's per-statement row limit still answers
// every key in order.
func testRecordCompareBatchLarge(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	const n = 1203
	recs := make([]*store.RecordInsertParams, n)
	keys := make([]store.RecordCompareKey, n)
	for i := range n {
		identifier := uuid.NewString()
		recs[i] = &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: job.SourceID,
			Identifier: identifier, Action: harvest.ActionCreate, SourceHash: identifier}
		keys[i] = store.RecordCompareKey{SourceID: job.SourceID, Identifier: identifier, RecordID: recs[i].ID}
	}
	require.NoError(t, s.RecordInsertBatch(ctx, recs))
	n2, err := s.RecordCount(ctx, job.SourceID)
	require.NoError(t, err)
	require.Equal(t, n, n2)

	got, err := s.RecordCompareBatch(ctx, keys)
	require.NoError(t, err)
	require.Len(t, got, n)
	for i, c := range got {
		require.NotNil(t, c.Stored, "key %d", i)
		require.Equal(t, job.ID, c.Stored.JobID)
	}
}

// testRecordInsertBatch: each row is stored as RecordInsert stores it; an id that exists, in
// the store or earlier in the batch, keeps its row.
func testRecordInsertBatch(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	existing := newRecord(t, s, job, "existing")
	settleRecord(t, s, existing, harvest.RecordSuccess)
	existing, err := s.RecordGet(ctx, existing.ID)
	require.NoError(t, err)

	full := &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: job.SourceID, Identifier: "a",
		Action: harvest.ActionUpdate, SourceHash: "h-a", SourceRaw: "{ \"identifier\" : \"a\",\n  \"title\": \"Café\"  }",
		SchemaType: harvest.SchemaDCATUS11Federal}
	del := &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: job.SourceID, Identifier: "b",
		Action: harvest.ActionDelete}
	again := *full
	again.Action, again.SourceHash = harvest.ActionCreate, "other"
	redelivered := &store.RecordInsertParams{ID: existing.ID, JobID: job.ID, SourceID: job.SourceID,
		Identifier: "existing", Action: harvest.ActionUpdate, SourceHash: "other"}
	require.NoError(t, s.RecordInsertBatch(ctx, []*store.RecordInsertParams{full, del, &again, redelivered}))

	for _, p := range []*store.RecordInsertParams{full, del} {
		got, err := s.RecordGet(ctx, p.ID)
		require.NoError(t, err)
		require.Equal(t, &store.HarvestRecord{ID: p.ID, JobID: p.JobID, SourceID: p.SourceID, Identifier: p.Identifier,
			Action: p.Action, SourceHash: p.SourceHash, SourceRaw: p.SourceRaw, Status: harvest.RecordPending,
			SchemaType: p.SchemaType, CreatedAt: got.CreatedAt}, got)
		require.False(t, got.CreatedAt.IsZero())
	}
	got, err := s.RecordGet(ctx, existing.ID)
	require.NoError(t, err)
	require.Equal(t, existing, got, "a redelivered row leaves the stored one as it was")
	n, err := s.RecordCount(ctx, job.SourceID)
	require.NoError(t, err)
	require.Equal(t, 3, n)

	require.NoError(t, s.RecordInsertBatch(ctx, nil))
}

// testRecordInsertBatchFails: a row that cannot be written fails the whole batch, with the
// error RecordInsert gives it, and writes none of its rows.
func testRecordInsertBatchFails(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	newRecord(t, s, job, "taken")
	ok := &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: job.SourceID, Identifier: "ok",
		Action: harvest.ActionCreate}
	for _, c := range []struct {
		bad  store.RecordInsertParams
		want error
	}{
		{store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: job.SourceID, Identifier: "taken",
			Action: harvest.ActionCreate}, store.ErrConflict},
		{store.RecordInsertParams{ID: uuid.NewString(), JobID: uuid.NewString(), SourceID: job.SourceID,
			Identifier: "x", Action: harvest.ActionCreate}, store.ErrNotFound},
	} {
		_, err := s.RecordInsert(ctx, &c.bad)
		require.ErrorIs(t, err, c.want, "RecordInsert")
		err = s.RecordInsertBatch(ctx, []*store.RecordInsertParams{ok, &c.bad})
		require.ErrorIs(t, err, c.want, "RecordInsertBatch")
		_, err = s.RecordGet(ctx, ok.ID)
		require.ErrorIs(t, err, store.ErrNotFound, "no row of a failed batch is written")
	}
}
