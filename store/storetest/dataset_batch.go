package storetest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// testDatasetUpsertBatch: a batch creates and updates datasets as DatasetUpsert does (an update
// keeps its slug) and returns them in the params' order.
func testDatasetUpsertBatch(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	old := newDataset(t, s, first, "old")
	finishJob(t, s, first.ID)
	job := newJob(t, s, src.ID)

	var ps []*store.DatasetUpsertParams
	for _, id := range []string{"n3", "old", "n1", "n2"} {
		rec := newRecord(t, s, job, id)
		ps = append(ps, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: id, Slug: "batch-" + id + "-" + src.ID[:8],
			DCAT: json.RawMessage(fmt.Sprintf(`{"identifier": %q, "title": "Batch %s"}`, id, id)), RecordID: rec.ID})
	}
	got, err := s.DatasetUpsertBatch(ctx, ps)
	require.NoError(t, err)
	require.Len(t, got, len(ps))
	for i, p := range ps {
		require.Equal(t, p.Identifier, got[i].Identifier, "in the params' order")
		require.Equal(t, p.RecordID, got[i].RecordID)
		require.JSONEq(t, string(p.DCAT), string(got[i].DCAT))
		stored, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: src.ID, Identifier: p.Identifier})
		require.NoError(t, err)
		require.Equal(t, stored, got[i])
	}
	require.Equal(t, old.ID, got[1].ID)
	require.Equal(t, old.Slug, got[1].Slug, "an update keeps its slug")
	require.Equal(t, ps[0].Slug, got[0].Slug, "a create takes the given slug")

	none, err := s.DatasetUpsertBatch(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, none)
}

// testDatasetUpsertBatchConflict: a taken slug, or one dataset named twice, fails the whole
// batch with ErrConflict and writes nothing.
func testDatasetUpsertBatchConflict(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	taken := newDataset(t, s, job, "a")
	b, c := newRecord(t, s, job, "b"), newRecord(t, s, job, "c")
	free := &store.DatasetUpsertParams{SourceID: job.SourceID, Identifier: "c", Slug: "free-" + job.ID, DCAT: dcat("c"), RecordID: c.ID}

	for name, batch := range map[string][]*store.DatasetUpsertParams{
		"slug taken": {free, {SourceID: job.SourceID, Identifier: "b", Slug: taken.Slug, DCAT: dcat("b"), RecordID: b.ID}},
		"twice":      {free, free},
	} {
		_, err := s.DatasetUpsertBatch(ctx, batch)
		require.ErrorIs(t, err, store.ErrConflict, name)
		for _, id := range []string{"b", "c"} {
			_, err = s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: job.SourceID, Identifier: id})
			require.ErrorIs(t, err, store.ErrNotFound, "%s: nothing was written", name)
		}
	}
}

// testDatasetUpsertBatchAltSlug: a created dataset whose slug is taken takes its AltSlug in the
// same batch; a free slug is kept; an updated dataset keeps its slug whatever AltSlug says.
func testDatasetUpsertBatchAltSlug(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	taken := newDataset(t, s, job, "a")
	b, c := newRecord(t, s, job, "b"), newRecord(t, s, job, "c")
	got, err := s.DatasetUpsertBatch(ctx, []*store.DatasetUpsertParams{
		{SourceID: job.SourceID, Identifier: "b", Slug: taken.Slug, AltSlug: "alt-b-" + job.ID, DCAT: dcat("b"), RecordID: b.ID},
		{SourceID: job.SourceID, Identifier: "c", Slug: "free-" + job.ID, AltSlug: "alt-c-" + job.ID, DCAT: dcat("c"), RecordID: c.ID},
		{SourceID: job.SourceID, Identifier: "a", Slug: "new-a-" + job.ID, AltSlug: "alt-a-" + job.ID, DCAT: dcat("a"), RecordID: taken.RecordID},
	})
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, "alt-b-"+job.ID, got[0].Slug, "a taken slug gives way to AltSlug")
	require.Equal(t, "free-"+job.ID, got[1].Slug, "a free slug is kept")
	require.Equal(t, taken.Slug, got[2].Slug, "an update keeps its slug")
	require.Equal(t, taken.ID, got[2].ID)
	for i, id := range []string{"b", "c"} {
		d, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: job.SourceID, Identifier: id})
		require.NoError(t, err)
		require.Equal(t, got[i].Slug, d.Slug)
	}
}
