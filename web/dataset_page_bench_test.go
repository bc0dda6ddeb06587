package web

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

var pageDatasets = flag.Int("web.datasets", 10000, "live datasets BenchmarkPublicDatasetPage seeds")

// BenchmarkPublicDatasetPage seeds -web.datasets live datasets on SQLite (real DCAT-US records
// of the GSA and DOL corpus catalogs, cycled, each with its own identifier and slug), then asks
// GET /dataset/{slug} of web's handler (no network: ServeHTTP) for datasets taken across the
// catalog, max(b.N, 200) times, and reports the latency's p50 and p95 (page-p50-ms,
// page-p95-ms). The page reads one dataset by its slug (a unique index) joined to its source
// and organization by key, and renders that record: its cost does not grow with the catalog
// but by the index's depth. docs/benchmarks.md has the figures:
//
//	go test ./web -run '^$' -bench PublicDatasetPage -benchtime 200x
func BenchmarkPublicDatasetPage(b *testing.B) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "h.db"))
	require.NoError(b, err)
	defer st.Close()
	require.NoError(b, st.Migrate(ctx))
	slugs := seedCatalog(b, st, *pageDatasets)
	log := slog.New(slog.DiscardHandler)
	a, err := api.New(api.Config{APIKey: testKey}, api.Deps{Store: st, Logger: log})
	require.NoError(b, err)
	h, err := New(Config{APIKey: testKey, Catalog: feeds.Catalog{Title: "Bench catalog"}}, Deps{Store: st, API: a, Logger: log})
	require.NoError(b, err)
	n := max(b.N, 200)
	lat := make([]time.Duration, 0, n)
	runtime.GC() // the seeding's garbage is not the page's
	b.ResetTimer()
	for i := range n {
		w := httptest.NewRecorder()
		t0 := time.Now()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/dataset/"+slugs[(i*7919)%len(slugs)], nil))
		lat = append(lat, time.Since(t0))
		require.Equal(b, http.StatusOK, w.Code, w.Body.String())
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.50), "page-p50-ms")
	b.ReportMetric(ms(0.95), "page-p95-ms")
	b.ReportMetric(float64(len(slugs)), "datasets")
}

// seedCatalog stores n live datasets of one source, 500 a batch, and returns their slugs.
func seedCatalog(b *testing.B, st store.Store, n int) []string {
	ctx := context.Background()
	var templates []map[string]json.RawMessage
	for _, f := range []string{"dcatus/agency-gsa-2025-07.data.json", "dcatus/agency-dol-2025-07.data.json"} {
		body, err := os.ReadFile(corpustest.Path(b, f))
		require.NoError(b, err)
		var cat struct{ Dataset []map[string]json.RawMessage }
		require.NoError(b, json.Unmarshal(body, &cat))
		templates = append(templates, cat.Dataset...)
	}
	org, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Bench agency", Slug: "bench-agency"})
	require.NoError(b, err)
	src, err := st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: org.ID, Name: "Bench catalog",
		URL: "https://example.gov/data.json", SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(b, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(b, err)
	slugs := make([]string, 0, n)
	for i := 0; i < n; i += 500 {
		var recs []*store.RecordInsertParams
		var dss []*store.DatasetUpsertParams
		for j := i; j < min(i+500, n); j++ {
			rec := map[string]json.RawMessage{}
			for k, v := range templates[j%len(templates)] {
				rec[k] = v
			}
			ident := fmt.Sprintf("bench-%07d", j)
			rec["identifier"], _ = json.Marshal(ident)
			dcat, err := json.Marshal(rec)
			require.NoError(b, err)
			id := uuid.NewString()
			recs = append(recs, &store.RecordInsertParams{ID: id, JobID: job.ID, SourceID: src.ID, Identifier: ident,
				Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: string(dcat), SchemaType: harvest.SchemaDCATUS11Federal})
			slug := fmt.Sprintf("dataset-%d", j)
			dss = append(dss, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: ident, Slug: slug, DCAT: dcat, RecordID: id})
			slugs = append(slugs, slug)
		}
		require.NoError(b, st.RecordInsertBatch(ctx, recs))
		_, err := st.DatasetUpsertBatch(ctx, dss)
		require.NoError(b, err)
	}
	return slugs
}
