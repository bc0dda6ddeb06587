package storetest

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testDatasetFindElsewhere: a live dataset is found by identifier in another source, with
// that source's name; the asking source's own datasets and unknown identifiers are not.
func testDatasetFindElsewhere(t *testing.T, s store.Store) {
	ctx := t.Context()
	datajson, portal := newSource(t, s), newSource(t, s)
	job := newJob(t, s, datajson.ID)
	d := newDataset(t, s, job, "USDA-ERS-00071")
	portalJob := newJob(t, s, portal.ID)
	newDataset(t, s, portalJob, "portal-only")

	got, err := s.DatasetFindElsewhere(ctx, &store.DatasetFindElsewhereParams{SourceID: portal.ID, Identifier: "USDA-ERS-00071"})
	require.NoError(t, err)
	require.Equal(t, &store.DatasetElsewhere{SourceID: datajson.ID, SourceName: datajson.Name,
		Identifier: "USDA-ERS-00071", Slug: d.Slug}, got)

	_, err = s.DatasetFindElsewhere(ctx, &store.DatasetFindElsewhereParams{SourceID: datajson.ID, Identifier: "USDA-ERS-00071"})
	require.ErrorIs(t, err, store.ErrNotFound, "a source's own dataset is not elsewhere")
	_, err = s.DatasetFindElsewhere(ctx, &store.DatasetFindElsewhereParams{SourceID: datajson.ID, Identifier: "nope"})
	require.ErrorIs(t, err, store.ErrNotFound)
}

// testSourcePortalTypes: every source type harvest names can be stored (migration 012 added
// "dkan" to the check).
func testSourcePortalTypes(t *testing.T, s store.Store) {
	for _, typ := range []harvest.SourceType{harvest.SourceCKAN, harvest.SourceDKAN, harvest.SourceSocrata,
		harvest.SourceArcGIS, harvest.SourceOpenDataSoft, harvest.SourceRDF} {
		src, err := s.SourceEnsure(t.Context(), &store.SourceEnsureParams{Name: string(typ),
			URL: "https://portal.example.org/" + uuid.NewString(), SourceType: typ, SchemaType: harvest.SchemaDCATUS11NonFederal})
		require.NoError(t, err, typ)
		require.Equal(t, typ, src.SourceType)
	}
}
