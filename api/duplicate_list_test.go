package api

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// holdPair gives the sources of keptJob and heldJob a dataset of identifier ident each, with
// its record of that job, then holds the second against the first as a pair heldJob found.
func (b *testBundle) holdPair(t *testing.T, keptJob, heldJob *store.HarvestJob, ident string) {
	t.Helper()
	ctx := t.Context()
	dataset := func(j *store.HarvestJob) *store.Dataset {
		rec, err := b.store.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: j.ID, SourceID: j.SourceID,
			Identifier: ident, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: "{}",
			SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		ds, err := b.store.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: j.SourceID, Identifier: ident,
			Slug: ident + "-" + uuid.NewString()[:8], DCAT: json.RawMessage(`{}`), RecordID: rec.ID})
		require.NoError(t, err)
		return ds
	}
	k, h := dataset(keptJob), dataset(heldJob)
	ok, err := b.store.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: k.ID, HeldID: h.ID,
		Match: store.MatchIdentifier, Key: ident, JobID: heldJob.ID})
	require.NoError(t, err)
	require.True(t, ok, "held")
}

// TestCrossSourceDuplicateList: the list answers the pairs as the document says, filtered by a
// source on either side, an organization of either side and the job that found them, paged as
// every list is; an unknown or malformed id filters to nothing.
func TestCrossSourceDuplicateList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	org1, org2 := b.newOrganization(t), b.newOrganization(t)
	agency, other := b.newSource(t, org1.ID), b.newSource(t, org2.ID)
	agg := b.newSource(t, "")
	agencyJob := b.newJob(t, agency.ID, harvest.JobHarvest)
	aggJob, otherJob := b.newJob(t, agg.ID, harvest.JobHarvest), b.newJob(t, other.ID, harvest.JobHarvest)
	b.holdPair(t, agencyJob, aggJob, "x")
	b.holdPair(t, agencyJob, otherJob, "y")

	all := b.get(t, "/api/v1/cross_source_duplicates")
	require.Equal(t, http.StatusOK, all.status, string(all.body))
	requireSchema(t, "CrossSourceDuplicateList", all.object(t))
	page := decode[list[duplicateJSON]](t, all)
	require.Equal(t, 2, page.Total)
	require.Len(t, page.Items, 2)

	byJob := decode[list[duplicateJSON]](t, b.get(t, "/api/v1/cross_source_duplicates?job_id="+aggJob.ID))
	require.Equal(t, 1, byJob.Total)
	d := byJob.Items[0]
	require.Equal(t, "identifier", d.Match)
	require.Equal(t, "x", d.Key)
	require.Equal(t, agency.ID, d.Kept.SourceID)
	require.Equal(t, agency.Name, d.Kept.SourceName)
	require.Equal(t, org1.ID, *d.Kept.OrganizationID)
	require.Equal(t, org1.Name, *d.Kept.OrganizationName)
	require.Equal(t, agg.ID, d.Held.SourceID)
	require.Nil(t, d.Held.OrganizationID, "the aggregator has no organization: null")
	require.Nil(t, d.Held.OrganizationName)
	for _, side := range []duplicateSideJSON{d.Kept, d.Held} {
		require.Equal(t, "x", side.Identifier)
		require.NotNil(t, side.DatasetID)
		require.NotNil(t, side.DatasetSlug)
		require.NotNil(t, side.HarvestRecordID)
	}
	require.Equal(t, aggJob.ID, *d.FirstJobID)
	require.False(t, d.FirstSeenAt.IsZero())

	for query, want := range map[string]int{
		"source_id=" + agency.ID: 2, "source_id=" + agg.ID: 1, "source_id=" + other.ID: 1,
		"organization_id=" + org1.ID: 2, "organization_id=" + org2.ID: 1,
		"job_id=" + otherJob.ID: 1, "job_id=" + otherJob.ID + "&source_id=" + agg.ID: 0,
		"job_id=" + uuid.NewString(): 0, "source_id=not-a-uuid": 0, "organization_id=" + uuid.NewString(): 0,
		"per_page=1": 2, "per_page=1&page=2": 2, "page=3&per_page=1": 2,
	} {
		r := b.get(t, "/api/v1/cross_source_duplicates?"+query)
		require.Equal(t, http.StatusOK, r.status, "%s: %s", query, r.body)
		got := decode[list[duplicateJSON]](t, r)
		require.Equal(t, want, got.Total, query)
		require.Len(t, got.Items, min(want, got.PerPage, max(0, want-(got.Page-1)*got.PerPage)), query)
	}
	p1 := decode[list[duplicateJSON]](t, b.get(t, "/api/v1/cross_source_duplicates?per_page=1"))
	p2 := decode[list[duplicateJSON]](t, b.get(t, "/api/v1/cross_source_duplicates?per_page=1&page=2"))
	require.NotEqual(t, p1.Items[0].Key, p2.Items[0].Key, "two pages, two pairs")

	requireFields(t, b.get(t, "/api/v1/cross_source_duplicates?per_page=0&dataset_id=x"), "per_page", "dataset_id")
}
