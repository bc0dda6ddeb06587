package web

import (
	"cmp"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// qualityText returns the text of the element with id in an HTML page (up to its first tag).
func qualityText(t *testing.T, body, id string) string {
	t.Helper()
	m := regexp.MustCompile(`id="` + regexp.QuoteMeta(id) + `"[^>]*>([^<]*)<`).FindStringSubmatch(body)
	require.NotNil(t, m, "no #%s", id)
	return m[1]
}

// onStores runs f in parallel on a SQLite store and on a Postgres one.
func onStores(t *testing.T, f func(t *testing.T, st store.Store)) {
	for name, open := range map[string]func(t *testing.T) store.Store{
		"sqlite":   sqliteStore,
		"postgres": func(t *testing.T) store.Store { return dbtest.Store(t) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, open(t))
		})
	}
}

// TestQualityPages: before any job recorded the quality, the source and organization pages say
// so and the quality page still ranks what to fix from the stored records ("Add keywords to
// these 2 datasets: +30 points each", naming them); once jobs recorded it, the panels give the
// recorded score, rating and broken links with a trend chart of one point per job; a dataset's
// page gives its score, what it misses and its broken link. On both stores.
func TestQualityPages(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		org, src, bare, broken := seedQuality(t, st)
		b := publicSite(t, st).browser(t)

		code, body := b.get("/harvest_sources/" + src.ID)
		require.Equal(t, http.StatusOK, code, body)
		require.Contains(t, body, `id="source-quality-none"`)
		code, body = b.get("/organizations/" + org.ID)
		require.Equal(t, http.StatusOK, code, body)
		require.Contains(t, body, `id="organization-quality-none"`)

		now, err := assess.SourceQuality(ctx, st, src.ID)
		require.NoError(t, err)
		code, body = b.get("/harvest_sources/" + src.ID + "/quality")
		require.Equal(t, http.StatusOK, code, body)
		require.Equal(t, points(now.Mean), qualityText(t, body, "quality-score"))
		require.Contains(t, body, `id="quality-trend-none"`)
		fix := regexp.MustCompile(`(?s)<li class="quality-fix" data-metric="pv:keywordAvailability" data-datasets="2">(.*?)</ul>`).
			FindStringSubmatch(body)
		require.NotNil(t, fix, body)
		text := strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(fix[1], " ")), " ")
		require.Contains(t, text, "Add keywords to these 2 datasets: +30 points each")
		require.Contains(t, text, "Q source bare 1 +30.0 Q source bare 2 +30.0")
		require.NotContains(t, text, "Kept")

		for i := range 2 {
			finished := time.Date(2026, 12, 1+i, 10, 0, 0, 0, time.UTC)
			_, err := assess.RecordJob(ctx, st, &store.HarvestJob{ID: uuid.NewString(), SourceID: src.ID,
				FinishedAt: &finished}, src)
			require.NoError(t, err)
		}
		for _, page := range []struct{ path, id string }{
			{"/harvest_sources/" + src.ID, "source"}, {"/organizations/" + org.ID, "organization"},
		} {
			code, body = b.get(page.path)
			require.Equal(t, http.StatusOK, code, body)
			require.Equal(t, points(now.Mean), qualityText(t, body, page.id+"-quality-score"), page.path)
			require.Equal(t, string(now.Rating), qualityText(t, body, page.id+"-quality-rating"), page.path)
			require.Contains(t, body, "<strong>1 broken</strong>", page.path)
			require.Equal(t, 2, strings.Count(body, `class="trend-point"`), "%s: a point per recorded job", page.path)
		}
		code, body = b.get("/harvest_sources/" + src.ID + "/quality")
		require.Equal(t, http.StatusOK, code, body)
		require.Equal(t, 2, strings.Count(body, `class="trend-point"`))

		ds, err := assess.DatasetQuality(ctx, st, bare.ID)
		require.NoError(t, err)
		code, body = b.get("/dataset/" + bare.Slug)
		require.Equal(t, http.StatusOK, code, body)
		require.Equal(t, points(ds.Score.Points), qualityText(t, body, "dataset-quality-score"))
		require.Contains(t, body, `<li data-metric="pv:keywordAvailability">Add keywords`)
		require.Contains(t, body, "HTTP 404")
		require.Contains(t, body, broken)
	})
}

// seedQuality makes an organization's source of three datasets sharing a download URL whose
// check answered 404, two of them (bare-1, bare-2) without keywords; it returns bare-1.
func seedQuality(t *testing.T, st store.Store) (*store.Organization, *store.Source, *store.Dataset, string) {
	t.Helper()
	return seedQualitySource(t, st, "Q source", "", 2)
}

// seedQualitySource makes an organization's source name of a kept dataset and bare datasets
// without keywords (slugs prefix+"kept", prefix+"bare-1", …), each with one download URL
// whose check answered 404; it returns the first bare dataset and that URL.
func seedQualitySource(t *testing.T, st store.Store, name, prefix string, bare int) (*store.Organization, *store.Source, *store.Dataset, string) {
	t.Helper()
	ctx := t.Context()
	org, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: name + " org", Slug: "q-" + uuid.NewString()[:8]})
	require.NoError(t, err)
	src, err := st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: org.ID, Name: name,
		URL: "https://example.gov/" + uuid.NewString(), SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	broken := "https://files.example.gov/" + uuid.NewString() + ".csv"
	add := func(slug, title string, keywords bool) *store.Dataset {
		doc := map[string]any{"identifier": slug, "title": title, "distribution": []any{
			map[string]any{"downloadURL": broken, "format": "CSV", "mediaType": "text/csv"}}}
		if keywords {
			doc["keyword"] = []string{"water"}
		}
		body, err := json.Marshal(doc)
		require.NoError(t, err)
		r, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: slug, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: string(body),
			SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		ds, err := st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: slug, Slug: slug,
			DCAT: body, RecordID: r.ID})
		require.NoError(t, err)
		return ds
	}
	add(prefix+"kept", "Kept", true)
	var first *store.Dataset
	for i := range bare {
		ds := add(prefix+"bare-"+strconv.Itoa(i+1), name+" bare "+strconv.Itoa(i+1), false)
		first = cmp.Or(first, ds)
	}
	require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{{URL: broken, Status: 404, FinalURL: broken,
		ContentLength: -1, CheckedAt: time.Now().UTC()}}))
	return org, src, first, broken
}

// fixText is the text of the fix of metric in a quality page, nil when it has none.
func fixText(body string, metric quality.Metric) (datasets string, text string, ok bool) {
	m := regexp.MustCompile(`(?s)<li class="quality-fix" data-metric="` + regexp.QuoteMeta(string(metric)) +
		`" data-datasets="(\d+)">(.*?)</li>\s*(?:<li class="quality-fix"|</ol>)`).FindStringSubmatch(body)
	if m == nil {
		return "", "", false
	}
	return m[1], strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[2], " ")), " "), true
}

// TestCatalogQualityPage: the catalog's quality page scores every source now (the score is the
// combination of the sources' own), sums a fix over the sources ("Add keywords to these 3
// datasets: +30 points each", naming them and each source with its share, linked to its quality
// page), ranks the sources by score, and charts the catalog's recorded history, a point per
// recorded job; the nav and the dashboard link to it. On both stores.
func TestCatalogQualityPage(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		b := publicSite(t, st).browser(t)
		code, body := b.get("/quality")
		require.Equal(t, http.StatusOK, code, body)
		require.Contains(t, body, `id="quality-sources-none"`)
		require.Contains(t, body, `id="quality-trend-none"`)

		_, worse, _, _ := seedQualitySource(t, st, "Worse", "w-", 2)
		_, better, _, _ := seedQualitySource(t, st, "Better", "b-", 1)
		_, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "Empty", URL: "https://example.gov/" + uuid.NewString(),
			SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		w, err := assess.SourceQuality(ctx, st, worse.ID)
		require.NoError(t, err)
		bq, err := assess.SourceQuality(ctx, st, better.ID)
		require.NoError(t, err)
		require.Greater(t, bq.Mean, w.Mean)
		all := assess.CombineSources(w, bq)

		code, body = b.get("/quality")
		require.Equal(t, http.StatusOK, code, body)
		require.Equal(t, points(all.Mean), qualityText(t, body, "quality-score"))
		require.Equal(t, string(all.Rating), qualityText(t, body, "quality-rating"))
		require.Equal(t, "5", qualityText(t, body, "quality-datasets"))
		n, text, ok := fixText(body, quality.KeywordAvailability)
		require.True(t, ok, body)
		require.Equal(t, "3", n)
		require.Contains(t, text, "Add keywords to these 3 datasets: +30 points each")
		require.Contains(t, text, "Better bare 1 +30.0 Worse bare 1 +30.0 Worse bare 2 +30.0")
		require.Contains(t, text, "By source: Worse 2 datasets, +60.0 points Better 1 dataset, +30.0 points")
		require.Contains(t, body, `<a href="/harvest_sources/`+worse.ID+`/quality">Worse</a>`)
		ranked := regexp.MustCompile(`<tr data-source-id="([^"]+)">`).FindAllStringSubmatch(body, -1)
		require.Len(t, ranked, 2, "the empty source is not ranked")
		require.Equal(t, []string{better.ID, worse.ID}, []string{ranked[0][1], ranked[1][1]})
		require.Contains(t, body, `id="quality-sources-empty"`)
		require.Contains(t, body, `id="quality-trend-none"`)

		for i, src := range []*store.Source{worse, better, worse} {
			finished := time.Date(2026, 12, 1+i, 10, 0, 0, 0, time.UTC)
			_, err := assess.RecordJob(ctx, st, &store.HarvestJob{ID: uuid.NewString(), SourceID: src.ID,
				FinishedAt: &finished}, src)
			require.NoError(t, err)
		}
		code, body = b.get("/quality")
		require.Equal(t, http.StatusOK, code, body)
		require.Equal(t, 3, strings.Count(body, `class="trend-point"`), "a point per recorded job")

		_, body = b.get("/dashboard")
		require.Contains(t, body, `href="/quality" id="dashboard-quality-link"`)
		require.Contains(t, body, `href="/quality" id="nav-quality"`)
	})
}

// TestQualityTrendShowsTheNewest: a history longer than trendMax charts its newest trendMax
// jobs on the source page, its quality page and the catalog's, the oldest left out. On both
// stores.
func TestQualityTrendShowsTheNewest(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		_, src, _, _ := seedQuality(t, st)
		first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		_, err := assess.RecordJob(ctx, st, &store.HarvestJob{ID: uuid.NewString(), SourceID: src.ID, FinishedAt: &first}, src)
		require.NoError(t, err)
		var jobs []string
		for _, scope := range []struct{ scope, id string }{
			{store.QualityScopeSource, src.ID}, {store.QualityScopeCatalog, ""},
		} {
			recorded, err := st.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{Scope: scope.scope,
				ScopeID: scope.id, Summaries: true})
			require.NoError(t, err)
			require.Len(t, recorded, 1)
			var rows []*store.QualityAggregate
			for i := range trendMax + 5 {
				row := *recorded[0]
				if scope.scope == store.QualityScopeSource {
					jobs = append(jobs, uuid.NewString())
				}
				row.JobID, row.ComputedAt = jobs[i], first.Add(time.Duration(i+1)*time.Hour)
				rows = append(rows, &row)
			}
			require.NoError(t, st.QualityAggregateSave(ctx, rows))
		}
		b := publicSite(t, st).browser(t)
		for _, path := range []string{"/harvest_sources/" + src.ID, "/harvest_sources/" + src.ID + "/quality", "/quality"} {
			code, body := b.get(path)
			require.Equal(t, http.StatusOK, code, body)
			require.Equal(t, trendMax, strings.Count(body, `class="trend-point"`), path)
			require.Contains(t, body, `data-job-id="`+jobs[len(jobs)-1]+`"`, "%s: the newest job", path)
			require.NotContains(t, body, `data-job-id="`+jobs[4]+`"`, "%s: an old one left out", path)
			require.Contains(t, body, `data-job-id="`+jobs[5]+`"`, "%s: the oldest of the newest %d", path, trendMax)
		}
	})
}
