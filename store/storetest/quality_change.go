package storetest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// testDatasetChangeMarks: the datasets a batch writes mark their source's quality inputs
// changed (QualityChangeList) with O(1) marks a batch, not one a dataset (SQLite's triggers, one
// a row, keep a source's newest mark; Postgres's, one a statement, write one), an update that
// changes nothing the score reads marks nothing, and a job's end that deletes the marks it read
// after a later change still leaves that change's mark (a replaced mark's id is never reused).
func testDatasetChangeMarks(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	marks := func() []int64 {
		t.Helper()
		ids, err := s.QualityChangeList(ctx, src.ID)
		require.NoError(t, err)
		return ids
	}
	require.NoError(t, s.QualityChangeDelete(ctx, marks())) // a source's first job scores it
	batch := func(job *store.HarvestJob) []*store.DatasetUpsertParams {
		t.Helper()
		var ps []*store.DatasetUpsertParams
		for i := range 20 {
			id := fmt.Sprintf("m%d", i)
			ps = append(ps, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: id, Slug: id + "-" + src.ID[:8],
				DCAT: dcat(id), RecordID: newRecord(t, s, job, id).ID})
		}
		_, err := s.DatasetUpsertBatch(ctx, ps)
		require.NoError(t, err)
		return ps
	}

	first := newJob(t, s, src.ID)
	ps := batch(first) // a first harvest: 20 inserts
	require.NotEmpty(t, marks())
	require.LessOrEqual(t, len(marks()), 2, "20 inserted datasets")
	finishJob(t, s, first.ID)
	require.NoError(t, s.QualityChangeDelete(ctx, marks()))

	_, err := s.DatasetUpsertBatch(ctx, ps) // the same datasets again: nothing the score reads
	require.NoError(t, err)
	require.Empty(t, marks(), "an unchanged upsert")

	force := newJob(t, s, src.ID)
	batch(force) // a force harvest: 20 updates, each to a new record
	require.NotEmpty(t, marks())
	require.LessOrEqual(t, len(marks()), 2, "20 updated datasets")

	read := marks()                       // a job's end reads the marks, then scores
	d := newDataset(t, s, force, "later") // a change meanwhile
	require.NoError(t, s.QualityChangeDelete(ctx, read))
	require.NotEmpty(t, marks(), "the change after the read keeps a mark")

	require.NoError(t, s.QualityChangeDelete(ctx, marks()))
	gone, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: src.ID, Identifier: d.Identifier})
	require.NoError(t, err)
	require.True(t, gone)
	require.NotEmpty(t, marks(), "a deleted dataset")
}
