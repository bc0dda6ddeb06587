package storetest

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testRecordCompareSHACLProfile: the SHACL profile a record is inserted with (RecordInsert and
// RecordInsertBatch) is what RecordCompareBatch answers for it as the newest comparable record;
// a record inserted without one answers "".
func testRecordCompareSHACLProfile(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	one, err := s.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID,
		SourceID: job.SourceID, Identifier: "one", Action: harvest.ActionCreate, SourceHash: "h1",
		SchemaType: harvest.SchemaDCATAP, SHACLProfile: "none"})
	require.NoError(t, err)
	batch := []*store.RecordInsertParams{
		{ID: uuid.NewString(), JobID: job.ID, SourceID: job.SourceID, Identifier: "two", Action: harvest.ActionCreate,
			SourceHash: "h2", SchemaType: harvest.SchemaDCATAP, SHACLProfile: "dcat-ap-2.1.1"},
		{ID: uuid.NewString(), JobID: job.ID, SourceID: job.SourceID, Identifier: "three", Action: harvest.ActionCreate,
			SourceHash: "h3", SchemaType: harvest.SchemaDCATUS11Federal},
	}
	require.NoError(t, s.RecordInsertBatch(ctx, batch))
	settleRecord(t, s, one, harvest.RecordSuccess)
	for _, p := range batch {
		rec, err := s.RecordGet(ctx, p.ID)
		require.NoError(t, err)
		settleRecord(t, s, rec, harvest.RecordErrorValidation)
	}
	var keys []store.RecordCompareKey
	for _, id := range []string{"one", "two", "three"} {
		keys = append(keys, store.RecordCompareKey{SourceID: job.SourceID, Identifier: id, RecordID: uuid.NewString()})
	}
	got, err := s.RecordCompareBatch(ctx, keys)
	require.NoError(t, err)
	require.Len(t, got, 3)
	var profiles []string
	for _, c := range got {
		require.NotNil(t, c.Latest)
		profiles = append(profiles, c.Latest.SHACLProfile)
	}
	require.Equal(t, []string{"none", "dcat-ap-2.1.1", ""}, profiles)
}
