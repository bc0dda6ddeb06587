package api

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// qualitySeed makes a source with two datasets that differ only in their accessURL (ok's
// answers 200, broken's 404) and share a downloadURL never checked, and stores those checks.
func qualitySeed(t *testing.T, st store.Store) (src *store.Source, ok, broken *store.Dataset, base string) {
	ctx := t.Context()
	src, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "Quality", URL: "https://example.gov/" + uuid.NewString(),
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	base = "https://links.example.gov/" + uuid.NewString()[:8]
	write := func(id, accessURL string) *store.Dataset {
		doc, err := json.Marshal(map[string]any{"identifier": id, "keyword": []string{"k"}, "distribution": []map[string]any{
			{"accessURL": accessURL, "downloadURL": base + "/data.csv", "mediaType": "text/csv"}}})
		require.NoError(t, err)
		r, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: id, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: "{}", SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		ds, err := st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: id,
			Slug: id + "-" + uuid.NewString()[:8], DCAT: doc, RecordID: r.ID})
		require.NoError(t, err)
		return ds
	}
	ok, broken = write("ok", base+"/ok"), write("broken", base+"/gone")
	now := time.Now().UTC().Truncate(time.Second)
	require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{
		{URL: base + "/ok", Status: 200, OK: true, FinalURL: base + "/ok", CheckedAt: now},
		{URL: base + "/gone", Status: 404, FinalURL: base + "/gone", ContentLength: -1, CheckedAt: now},
	}))
	return src, ok, broken, base
}

// onStores runs f in parallel on a server over SQLite and on one over Postgres.
func onStores(t *testing.T, f func(t *testing.T, b *testBundle)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		f(t, setup(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		st := dbtest.Store(t)
		f(t, setup(t, func(_ *Config, d *Deps) { d.Store = st }))
	})
}

// TestQualityRoutes: a source's quality aggregates its datasets' scores and counts its links;
// its broken links page (and come as CSV) with the datasets that use them; a dataset's quality
// is its score, and the dataset whose accessURL is broken scores exactly accessUrlStatusCode's
// 50 points less. Unknown ids are 404. On both stores.
func TestQualityRoutes(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, b *testBundle) {
		src, ok, broken, base := qualitySeed(t, b.store)

		type datasetQuality struct {
			Slug  string `json:"slug"`
			Score struct {
				Points float64 `json:"points"`
			} `json:"score"`
			Links []struct {
				URL   string          `json:"url"`
				Check json.RawMessage `json:"check"`
			} `json:"links"`
		}
		good := decode[datasetQuality](t, b.request(t, http.MethodGet, "/api/v1/datasets/"+ok.ID+"/quality", nil))
		bad := decode[datasetQuality](t, b.request(t, http.MethodGet, "/api/v1/datasets/"+broken.ID+"/quality", nil))
		require.Equal(t, ok.Slug, good.Slug)
		require.Equal(t, 50.0, good.Score.Points-bad.Score.Points)
		require.Len(t, bad.Links, 2)
		require.Equal(t, base+"/data.csv", bad.Links[1].URL)
		require.Equal(t, "null", string(bad.Links[1].Check), "never checked")

		r := b.request(t, http.MethodGet, "/api/v1/harvest_sources/"+src.ID+"/quality", nil)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		sq := decode[struct {
			Datasets int     `json:"datasets"`
			Mean     float64 `json:"mean"`
			Rating   string  `json:"rating"`
			Links    map[string]int
		}](t, r)
		require.Equal(t, 2, sq.Datasets)
		require.InDelta(t, (good.Score.Points+bad.Score.Points)/2, sq.Mean, 1e-9)
		require.NotEmpty(t, sq.Rating)
		require.Equal(t, map[string]int{"urls": 3, "checked": 2, "ok": 1, "broken": 1, "unchecked": 1}, sq.Links)

		page := b.request(t, http.MethodGet, "/api/v1/harvest_sources/"+src.ID+"/broken_links", nil).object(t)
		require.EqualValues(t, 1, page["total"])
		items := page["items"].([]any)
		require.Len(t, items, 1)
		item := items[0].(map[string]any)
		require.Equal(t, base+"/gone", item["url"])
		require.EqualValues(t, 404, item["status"])
		require.Nil(t, item["last_ok_at"])
		require.Equal(t, []any{broken.Slug}, item["datasets"])
		empty := b.request(t, http.MethodGet, "/api/v1/harvest_sources/"+src.ID+"/broken_links?page=2", nil).object(t)
		require.Empty(t, empty["items"])
		require.EqualValues(t, 1, empty["total"])

		csv := b.request(t, http.MethodGet, "/api/v1/harvest_sources/"+src.ID+"/broken_links?format=csv", nil)
		require.Equal(t, http.StatusOK, csv.status)
		require.Equal(t, "text/csv; charset=utf-8", csv.header.Get("Content-Type"))
		lines := strings.Split(strings.TrimSpace(string(csv.body)), "\n")
		require.Len(t, lines, 2, string(csv.body))
		require.Equal(t, strings.Join(brokenLinkColumns, ","), lines[0])
		require.True(t, strings.HasPrefix(lines[1], base+"/gone,404,,,"+base+"/gone,"), lines[1])
		require.True(t, strings.HasSuffix(lines[1], ",,1,"+broken.Slug), lines[1])

		for _, path := range []string{"/api/v1/datasets/" + uuid.NewString() + "/quality", "/api/v1/datasets/nope/quality",
			"/api/v1/harvest_sources/" + uuid.NewString() + "/quality", "/api/v1/harvest_sources/nope/broken_links"} {
			require.Equal(t, http.StatusNotFound, b.request(t, http.MethodGet, path, nil).status, path)
		}
		require.Equal(t, http.StatusUnprocessableEntity,
			b.request(t, http.MethodGet, "/api/v1/harvest_sources/"+src.ID+"/broken_links?format=xml", nil).status)
	})
}

// TestQualityHistoryRoutes: the jobs' recorded quality is the latest quality of an
// organization and of the catalog, and each recorded job is a point of the source's, the
// organization's and the catalog's history, oldest first, paged; the members are the
// document's. Before any record, an organization's quality is that of no dataset with null
// computed_at and job_id. Unknown ids are 404, a bad page 422. On both stores.
func TestQualityHistoryRoutes(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, b *testBundle) {
		ctx := t.Context()
		org := b.newOrganization(t)
		empty := b.request(t, http.MethodGet, "/api/v1/organizations/"+org.ID+"/quality", nil).object(t)
		require.Nil(t, empty["computed_at"])
		require.Nil(t, empty["job_id"])
		require.EqualValues(t, 0, empty["datasets"])
		require.Equal(t, "Bad", empty["rating"])

		src, _, _, _ := qualitySeed(t, b.store)
		src.OrganizationID = org.ID // as RecordJob reads it
		var jobs []string
		for i := range 3 {
			job := &store.HarvestJob{ID: uuid.NewString(), SourceID: src.ID}
			finished := time.Date(2026, 12, 1+i, 10, 0, 0, 0, time.UTC)
			job.FinishedAt = &finished
			_, err := assess.RecordJob(ctx, b.store, job, src)
			require.NoError(t, err)
			jobs = append(jobs, job.ID)
		}
		direct, err := assess.SourceQuality(ctx, b.store, src.ID)
		require.NoError(t, err)

		required := func(schema string) []any { return requiredMembers(t, schema) }
		for _, path := range []string{"/api/v1/organizations/" + org.ID + "/quality", "/api/v1/quality"} {
			r := b.request(t, http.MethodGet, path, nil)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			got := r.object(t)
			require.ElementsMatch(t, required("QualityAggregate"), slices.Collect(maps.Keys(got)), path)
			require.Equal(t, jobs[2], got["job_id"], path)
			require.Equal(t, "2026-12-03T10:00:00Z", got["computed_at"], path)
			require.EqualValues(t, 2, got["datasets"], path)
			require.InDelta(t, direct.Mean, got["mean"], 1e-9, path)
			require.Equal(t, map[string]any{"urls": 3.0, "checked": 2.0, "ok": 1.0, "broken": 1.0, "unchecked": 1.0}, got["links"], path)
		}
		for _, path := range []string{"/api/v1/harvest_sources/" + src.ID + "/quality/history",
			"/api/v1/organizations/" + org.ID + "/quality/history", "/api/v1/quality/history"} {
			page := b.request(t, http.MethodGet, path+"?per_page=2", nil).object(t)
			require.EqualValues(t, 3, page["total"], path)
			items := page["items"].([]any)
			require.Len(t, items, 2, path)
			first := items[0].(map[string]any)
			require.ElementsMatch(t, required("QualityPoint"), slices.Collect(maps.Keys(first)), path)
			require.Equal(t, jobs[0], first["job_id"], path)
			require.Equal(t, src.ID, first["source_id"], path)
			require.EqualValues(t, 1, first["links_broken"], path)
			require.InDelta(t, direct.Mean, first["mean"], 1e-9, path)
			last := b.request(t, http.MethodGet, path+"?per_page=2&page=2", nil).object(t)["items"].([]any)
			require.Len(t, last, 1, path)
			require.Equal(t, jobs[2], last[0].(map[string]any)["job_id"], path)
			past := b.request(t, http.MethodGet, path+"?per_page=2&page=5", nil).object(t)
			require.EqualValues(t, 3, past["total"], path)
			require.Equal(t, []any{}, past["items"], "a page past the end is empty: %s", path)
			require.Equal(t, http.StatusUnprocessableEntity, b.request(t, http.MethodGet, path+"?page=0", nil).status, path)
		}
		for _, path := range []string{"/api/v1/organizations/" + uuid.NewString() + "/quality",
			"/api/v1/organizations/nope/quality/history", "/api/v1/harvest_sources/" + uuid.NewString() + "/quality/history"} {
			require.Equal(t, http.StatusNotFound, b.request(t, http.MethodGet, path, nil).status, path)
		}
	})
}

// requiredMembers are the required members of a schema of the OpenAPI document, those of the
// parts of an allOf (SourceQuality's, for QualityAggregate) included.
func requiredMembers(t *testing.T, schema string) []any {
	t.Helper()
	schemas := loadOpenAPI(t)["components"].(map[string]any)["schemas"].(map[string]any)
	s := schemas[schema].(map[string]any)
	all, ok := s["allOf"].([]any)
	if !ok {
		return s["required"].([]any)
	}
	var out []any
	for _, part := range all {
		p := part.(map[string]any)
		if ref, ok := p["$ref"].(string); ok {
			p = schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
		}
		out = append(out, p["required"].([]any)...)
	}
	return out
}

// TestJobQuality: a job's quality report is the event CHECK kept, as kept; a job without one, and
// an unknown job, are 404. On both stores.
func TestJobQuality(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, b *testBundle) {
		ctx := t.Context()
		src, err := b.store.SourceInsert(ctx, &store.SourceInsertParams{Name: "Quality", URL: "https://example.gov/" + uuid.NewString(),
			SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		job, err := b.store.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		path := "/api/v1/harvest_jobs/" + job.ID + "/quality"
		require.Equal(t, http.StatusNotFound, b.request(t, http.MethodGet, path, nil).status, "not settled yet")

		event, err := harvest.QualityReportMessage(&harvest.QualityReport{JobID: job.ID, SourceID: src.ID,
			Time: time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC), Score: 174.5, Max: 405, Rating: "Sufficient", Datasets: 11,
			Links: harvest.QualityLinks{URLs: 11, Checked: 11, OK: 9, Broken: 2}, Costliest: []harvest.QualityIndicator{}})
		require.NoError(t, err)
		require.NoError(t, b.store.QualityReportSave(ctx, &store.QualityReport{JobID: job.ID, SourceID: src.ID,
			CreatedAt: time.Now(), Report: json.RawMessage(event.Payload)}))
		r := b.request(t, http.MethodGet, path, nil)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		require.JSONEq(t, string(event.Payload), string(r.body))
		require.Equal(t, http.StatusNotFound, b.request(t, http.MethodGet, "/api/v1/harvest_jobs/"+uuid.NewString()+"/quality", nil).status)
	})
}
