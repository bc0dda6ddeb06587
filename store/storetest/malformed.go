package storetest

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// unstorable is a dataset whose strings hold the escapes store.StorableJSON replaces, and a
// surrogate pair it keeps; unstorableRead is what either backend gives back, decoded.
const unstorable = `{"identifier": "u", "title": "a\ud800b", "description": "\udc00\u0000", "keyword": ["\ud83d\ude00"]}`

var unstorableRead = map[string]any{"identifier": "u", "title": "a\uFFFDb", "description": "\uFFFD\uFFFD",
	"keyword": []any{"\U0001F600"}}

func decodedJSON(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
	return v
}

// testDatasetUpsertUnstorableEscapes: an unpaired surrogate escape or \u0000 in a dataset's
// dcat is stored as U+FFFD by DatasetUpsert and DatasetUpsertBatch, on every backend (Postgres
// jsonb refuses them, SQLite would keep them).
func testDatasetUpsertUnstorableEscapes(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	rec := newRecord(t, s, job, "u")
	d, err := s.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: job.SourceID, Identifier: "u",
		Slug: "u-" + rec.ID[:8], DCAT: json.RawMessage(unstorable), RecordID: rec.ID})
	require.NoError(t, err)
	require.Equal(t, unstorableRead, decodedJSON(t, d.DCAT))
	got, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: job.SourceID, Identifier: "u"})
	require.NoError(t, err)
	require.Equal(t, unstorableRead, decodedJSON(t, got.DCAT))

	rec = newRecord(t, s, job, "v")
	ds, err := s.DatasetUpsertBatch(ctx, []*store.DatasetUpsertParams{{SourceID: job.SourceID, Identifier: "v",
		Slug: "v-" + rec.ID[:8], DCAT: json.RawMessage(unstorable), RecordID: rec.ID}})
	require.NoError(t, err)
	require.Len(t, ds, 1)
	require.Equal(t, unstorableRead, decodedJSON(t, ds[0].DCAT))
}

// testOutcomeSettleTransformUnstorableEscapes: a source_transform stored by OutcomeSettle
// has them as U+FFFD too.
func testOutcomeSettleTransformUnstorableEscapes(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	rec := newRecord(t, s, job, "u")
	_, _, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "id:u", Identifier: "u",
		RecordID: rec.ID, Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess,
		SourceTransform: json.RawMessage(unstorable)})
	require.NoError(t, err)
	got, err := s.RecordGet(ctx, rec.ID)
	require.NoError(t, err)
	require.Equal(t, unstorableRead, decodedJSON(t, got.SourceTransform))
}

// malformedIDs are ids that name nothing on any backend: not a uuid, a NUL, bytes that are not
// UTF-8, a uuid with a NUL after it.
var malformedIDs = []string{"nope", "\x00", "\xff", "a\xc3", uuid.NewString() + "\x00"}

// testMalformedIDs: a lookup by an id that cannot name a row is ErrNotFound on every backend,
// never a driver error; a list filtered by one finds nothing.
func testMalformedIDs(t *testing.T, s store.Store) {
	ctx := t.Context()
	for _, id := range malformedIDs {
		_, err := s.OrganizationGet(ctx, id)
		require.ErrorIs(t, err, store.ErrNotFound, "OrganizationGet(%q)", id)
		_, err = s.SourceGet(ctx, id)
		require.ErrorIs(t, err, store.ErrNotFound, "SourceGet(%q)", id)
		_, err = s.JobGet(ctx, id)
		require.ErrorIs(t, err, store.ErrNotFound, "JobGet(%q)", id)
		_, err = s.RecordGet(ctx, id)
		require.ErrorIs(t, err, store.ErrNotFound, "RecordGet(%q)", id)

		jobs, _, err := s.JobList(ctx, &store.JobListParams{SourceID: id})
		if err != nil {
			require.ErrorIs(t, err, store.ErrNotFound, "JobList(%q)", id)
		}
		require.Empty(t, jobs)
		srcs, _, err := s.SourceList(ctx, &store.SourceListParams{OrganizationID: id})
		if err != nil {
			require.ErrorIs(t, err, store.ErrNotFound, "SourceList(%q)", id)
		}
		require.Empty(t, srcs)
	}
}
