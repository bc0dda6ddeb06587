package assess_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
)

// seedSource makes a source of org (none when "") with one dataset per accessURL, and returns
// it with a job of it.
func seedSource(t *testing.T, st store.Store, org string, accessURLs ...string) (*store.Source, *store.HarvestJob) {
	ctx := t.Context()
	src, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "Q " + uuid.NewString()[:8],
		URL: "https://example.gov/" + uuid.NewString(), OrganizationID: org,
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	for i, u := range accessURLs {
		id := "d" + string(rune('a'+i))
		doc, err := json.Marshal(map[string]any{"identifier": id, "keyword": []string{"k"},
			"distribution": []map[string]any{{"accessURL": u, "mediaType": "text/csv"}}})
		require.NoError(t, err)
		r, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: id, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: "{}", SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: id,
			Slug: id + "-" + uuid.NewString()[:8], DCAT: doc, RecordID: r.ID})
		require.NoError(t, err)
	}
	return src, job
}

// TestRecordJob: a job's end stores its source's aggregate, its organization's (the combined
// latest of the organization's sources) and the catalog's, one row each per job, and recording
// a job again replaces them; the first record has no previous score and counts every broken
// link as newly broken; a later one gives the previous score, and as newly broken only the
// links that broke since (not one that stayed broken).
func TestRecordJob(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		org, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "O", Slug: "o-" + uuid.NewString()[:8]})
		require.NoError(t, err)
		base := "https://links.example.gov/" + uuid.NewString()[:8]
		check := func(url string, status int) {
			require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{{URL: url, Status: status, OK: status == 200,
				FinalURL: url, ContentLength: -1, CheckedAt: time.Now().UTC()}}))
		}
		a, jobA := seedSource(t, st, org.ID, base+"/a")
		b, jobB := seedSource(t, st, org.ID, base+"/b1", base+"/b2")
		loner, jobL := seedSource(t, st, "", base+"/l")
		check(base+"/a", 200)
		check(base+"/b1", 404)
		check(base+"/b2", 200)

		recA, err := assess.RecordJob(ctx, st, jobA, a)
		require.NoError(t, err)
		require.Nil(t, recA.Previous)
		require.Empty(t, recA.NewlyBroken)
		recB, err := assess.RecordJob(ctx, st, jobB, b)
		require.NoError(t, err)
		require.Nil(t, recB.Previous)
		require.Len(t, recB.NewlyBroken, 1, "the first record: every broken link")
		require.Equal(t, base+"/b1", recB.NewlyBroken[0].URL)
		_, err = assess.RecordJob(ctx, st, jobB, b)
		require.NoError(t, err, "recorded again")
		recL, err := assess.RecordJob(ctx, st, jobL, loner)
		require.NoError(t, err)

		history := func(scope, id string) []*store.QualityAggregate {
			rows, err := st.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{Scope: scope, ScopeID: id,
				Summaries: true})
			require.NoError(t, err)
			return rows
		}
		orgRows := history(store.QualityScopeOrganization, org.ID)
		require.Len(t, orgRows, 2, "one row per job of the organization's sources, job B's once")
		require.Equal(t, []string{jobA.ID, jobB.ID}, []string{orgRows[0].JobID, orgRows[1].JobID})
		require.Equal(t, 1, orgRows[0].Datasets)
		require.Equal(t, 3, orgRows[1].Datasets)
		require.InDelta(t, (recA.Source.Mean+2*recB.Source.Mean)/3, orgRows[1].Mean, 1e-9)
		require.Equal(t, 1, orgRows[1].LinksBroken)
		require.Equal(t, 3, orgRows[1].LinksURLs)
		orgNow, err := assess.SourceOf(orgRows[1])
		require.NoError(t, err)
		require.Equal(t, quality.RatingOf(orgNow.Mean), orgNow.Rating)
		require.Equal(t, 3, orgNow.Links.URLs)

		catalog := history(store.QualityScopeCatalog, "")
		require.Len(t, catalog, 3)
		require.Equal(t, 4, catalog[2].Datasets)
		require.InDelta(t, (recA.Source.Mean+2*recB.Source.Mean+recL.Source.Mean)/4, catalog[2].Mean, 1e-9)
		require.Empty(t, history(store.QualityScopeOrganization, ""), "a source with no organization writes no organization row")

		// A's link breaks; B's stays broken, checked again.
		check(base+"/a", 404)
		check(base+"/b1", 404)
		recA2, err := assess.RecordJob(ctx, st, &store.HarvestJob{ID: uuid.NewString(), SourceID: a.ID}, a)
		require.NoError(t, err)
		require.NotNil(t, recA2.Previous)
		require.InDelta(t, recA.Source.Mean, recA2.Previous.Mean, 1e-9)
		require.InDelta(t, 50, recA.Source.Mean-recA2.Source.Mean, 1e-9, "accessUrlStatusCode")
		require.Len(t, recA2.NewlyBroken, 1)
		require.Equal(t, base+"/a", recA2.NewlyBroken[0].URL)
		recB2, err := assess.RecordJob(ctx, st, &store.HarvestJob{ID: uuid.NewString(), SourceID: b.ID}, b)
		require.NoError(t, err)
		require.InDelta(t, recB.Source.Mean, recB2.Previous.Mean, 1e-9)
		require.Empty(t, recB2.NewlyBroken, "b1 was broken before the previous record")
		require.Len(t, history(store.QualityScopeSource, a.ID), 2)
		orgRows = history(store.QualityScopeOrganization, org.ID)
		require.Len(t, orgRows, 4)
		require.Equal(t, 3, orgRows[3].Datasets, "the organization's sources only, not the loner's")
	})
}
