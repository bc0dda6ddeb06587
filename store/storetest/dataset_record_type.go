package storetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// testDatasetRecordType: a dataset row keeps its DCAT-US 3.0 record type, through both upserts
// and an update; no record type is "dataset".
func testDatasetRecordType(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	d, err := s.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: job.SourceID, Identifier: "svc",
		Slug: "svc", DCAT: dcat("svc"), RecordID: newRecord(t, s, job, "svc").ID, RecordType: "dataservice"})
	require.NoError(t, err)
	require.Equal(t, "dataservice", d.RecordType)
	ds, err := s.DatasetUpsertBatch(ctx, []*store.DatasetUpsertParams{
		{SourceID: job.SourceID, Identifier: "plain", Slug: "plain", DCAT: dcat("plain"), RecordID: newRecord(t, s, job, "plain").ID},
		{SourceID: job.SourceID, Identifier: "series", Slug: "series", DCAT: dcat("series"),
			RecordID: newRecord(t, s, job, "series").ID, RecordType: "datasetseries"},
	})
	require.NoError(t, err)
	require.Equal(t, "dataset", ds[0].RecordType)
	require.Equal(t, "datasetseries", ds[1].RecordType)
	got, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: job.SourceID, Identifier: "svc"})
	require.NoError(t, err)
	require.Equal(t, "dataservice", got.RecordType)
}
