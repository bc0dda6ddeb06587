package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/searchtest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// TestSearchIndexMigratesOnStart: an index made by an older version's mapping (one without
// the temporal field, which refuses every record that has one on OpenSearch) is rebuilt from
// the store when processes that open it start, two at once as compose starts api and the sync
// worker: both start, and the index holds every dataset once, its orphan gone, on one
// OpenSearch index, and takes a document with a temporal field. On both setups.
func TestSearchIndexMigratesOnStart(t *testing.T) {
	t.Parallel()
	for name, setup := range map[string]func(t *testing.T, cfg *pipeline.Config){
		"sqlite+bleve": oldBleve,
		"postgres+opensearch": func(t *testing.T, cfg *pipeline.Config) {
			cfg.DatabaseURL = dbtest.URL(t)
			cfg.OpenSearchURL = searchtest.OpenSearchURL(t)
			cfg.SearchIndex = "test-" + strings.ReplaceAll(uuid.NewString(), "-", "")
			oldOpenSearch(t, cfg.OpenSearchURL, cfg.SearchIndex)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := pipeline.Config{DataDir: t.TempDir(), NATSURL: natstest.URL(t), Stages: []string{pipeline.StageSync},
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			setup(t, &cfg)
			st, err := pipeline.OpenStore(t.Context(), cfg)
			require.NoError(t, err)
			defer st.Close()
			const n = 150
			seedDatasets(t, st, n)

			ps := make([]*pipeline.Pipeline, 2)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i := range ps {
				wg.Go(func() { ps[i], errs[i] = pipeline.New(context.Background(), cfg) })
			}
			wg.Wait()
			for _, p := range ps {
				if p != nil {
					t.Cleanup(p.Close)
				}
			}
			require.NoError(t, errors.Join(errs...))
			for _, p := range ps {
				require.False(t, p.Index().Outdated())
				require.NoError(t, p.Start(context.Background())) // a router closed unstarted waits 30 s
			}
			idx := ps[0].Index()
			r, err := search.Reconcile(t.Context(), st, idx, "", false)
			require.NoError(t, err)
			require.True(t, r.Clean(), "%+v", r)
			require.Equal(t, n, r.Documents)
			res, err := idx.Search(t.Context(), search.Query{Text: "survey"})
			require.NoError(t, err)
			require.Equal(t, n, res.Total)

			d := search.Document{ID: "with-temporal", Title: "Later", Identifier: "x", SourceID: "s",
				Temporal: "2000-01-01/2010-12-31"}
			for _, p := range ps {
				opErrs, err := p.Index().Apply(t.Context(), []search.Op{{ID: d.ID, Doc: &d}})
				require.NoError(t, err)
				require.NoError(t, errors.Join(opErrs...))
			}
			if cfg.OpenSearchURL != "" {
				require.Len(t, aliasIndices(t, cfg.OpenSearchURL, cfg.SearchIndex), 1)
			}
		})
	}
}

// seedDatasets writes n live datasets of one source, a third with a temporal field.
func seedDatasets(t *testing.T, st store.Store, n int) {
	t.Helper()
	ctx := t.Context()
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "Seed", URL: "https://example.gov/" + uuid.NewString(),
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	for i := range n {
		id := fmt.Sprintf("ds-%03d", i)
		dcat := map[string]any{"identifier": id, "title": "Survey " + id}
		if i%3 == 0 {
			dcat["temporal"] = "2001-01-01/2002-12-31"
		}
		body, err := json.Marshal(dcat)
		require.NoError(t, err)
		rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: id, Action: harvest.ActionCreate, SourceHash: "h-" + id, SourceRaw: string(body)})
		require.NoError(t, err)
		_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: id, Slug: id,
			DCAT: body, RecordID: rec.ID})
		require.NoError(t, err)
	}
}

// oldBleve writes the bleve index the config selects as a version before the mapping stamp
// left it: a generation with bleve's default mapping and a document whose dataset is gone.
func oldBleve(t *testing.T, cfg *pipeline.Config) {
	dir, err := pipeline.BleveDir(*cfg)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	idx, err := blevesearch.New(filepath.Join(dir, "datasets-1.bleve"), blevesearch.NewIndexMapping())
	require.NoError(t, err)
	require.NoError(t, idx.Index("gone", map[string]any{"id": "gone", "title": "Gone survey"}))
	require.NoError(t, idx.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "current"), []byte("datasets-1.bleve\n"), 0o644))
}

// oldOpenSearch makes alias as an earlier version did: a strict mapping without temporal and
// without a stamp, the alias added after, and a document whose dataset is gone.
func oldOpenSearch(t *testing.T, url, alias string) {
	oldOpenSearchCleanup(t, url, alias)
	kw := `{"type": "keyword"}`
	send(t, http.MethodPut, url+"/"+alias+"-1", `{"mappings": {"dynamic": "strict", "properties": {"id": `+kw+
		`, "slug": `+kw+`, "identifier": `+kw+`, "source_id": `+kw+`, "record_id": `+kw+`, "organization": `+kw+
		`, "keyword": `+kw+`, "title": {"type": "text", "analyzer": "english"}, "dcat": {"type": "object", "enabled": false}}}}`)
	send(t, http.MethodPut, url+"/"+alias+"-1/_alias/"+alias, "")
	send(t, http.MethodPut, url+"/"+alias+"/_doc/gone?refresh=true", `{"id": "gone", "title": "Gone survey"}`)
	send(t, http.MethodPut, url+"/"+alias+"/_doc/x", `{"id": "x", "temporal": "2000"}`) // refused: strict
}

// oldOpenSearchCleanup deletes the alias's indices at the test's end.
func oldOpenSearchCleanup(t *testing.T, url, alias string) {
	t.Cleanup(func() {
		r, _ := http.NewRequest(http.MethodDelete, url+"/"+alias+"-*", nil)
		if resp, err := http.DefaultClient.Do(r); err == nil {
			resp.Body.Close()
		}
	})
}

func send(t *testing.T, method, url, body string) {
	t.Helper()
	r, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(url, "/_doc/x") {
		require.Contains(t, string(msg), "strict_dynamic_mapping_exception", "the old mapping refuses temporal")
		return
	}
	require.Less(t, resp.StatusCode, 300, string(msg))
}

// aliasIndices returns the indices the alias is on.
func aliasIndices(t *testing.T, url, alias string) []string {
	t.Helper()
	resp, err := http.Get(url + "/_alias/" + alias)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	var names []string
	for n := range out {
		names = append(names, n)
	}
	return names
}

// TestSearchIndexNameRule: one naming rule for the index on both setups, checked at start: an
// upper-case name worked on bleve and failed on OpenSearch at the first write; now both refuse
// it as a configuration error with the rule. A name at the longest (search.MaxIndexName) opens
// and rebuilds on both.
func TestSearchIndexNameRule(t *testing.T) {
	t.Parallel()
	for name, remote := range map[string]bool{"sqlite+bleve": false, "postgres+opensearch": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := pipeline.Config{DataDir: t.TempDir(), NATSURL: natstest.URL(t), Stages: []string{pipeline.StageSync},
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			if remote {
				cfg.DatabaseURL, cfg.OpenSearchURL = dbtest.URL(t), searchtest.OpenSearchURL(t)
			}
			for _, bad := range []string{"Harvester-Datasets", "datasets,old", "_datasets"} {
				cfg.SearchIndex = bad
				p, err := pipeline.New(t.Context(), cfg)
				if p != nil {
					p.Close()
				}
				require.ErrorIs(t, err, pipeline.ErrConfig, bad)
				require.ErrorContains(t, err, "an index name is lower case", bad)
				_, err = pipeline.OpenSearch(t.Context(), cfg)
				require.ErrorIs(t, err, pipeline.ErrConfig, bad)
			}

			cfg.SearchIndex = "t" + strings.Repeat(strings.ReplaceAll(uuid.NewString(), "-", ""), 8)[:search.MaxIndexName-1]
			if remote {
				oldOpenSearchCleanup(t, cfg.OpenSearchURL, cfg.SearchIndex)
			}
			idx, err := pipeline.OpenSearch(t.Context(), cfg)
			require.NoError(t, err)
			defer idx.Close()
			require.NoError(t, idx.Rebuild(t.Context(), func(func(search.Document) error) error { return nil }),
				"the concrete index's suffix fits")
		})
	}
}

// TestNewIndexOverExistingStoreIsFilled: a process that finds no index but a store that holds
// datasets (an OpenSearch node whose volume was lost, a new --search-index, a Postgres
// deployment moved from bleve to OpenSearch, a deleted <data-dir>/search) must not start on an
// empty index: SYNC only writes the documents of records that change, so the datasets already
// in the store would never be found until someone runs `harvester reindex`. On both setups.
func TestNewIndexOverExistingStoreIsFilled(t *testing.T) {
	t.Parallel()
	for name, remote := range map[string]bool{"sqlite+bleve": false, "postgres+opensearch": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := pipeline.Config{DataDir: t.TempDir(), NATSURL: natstest.URL(t), Stages: []string{pipeline.StageSync},
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			if remote {
				cfg.DatabaseURL, cfg.OpenSearchURL = dbtest.URL(t), searchtest.OpenSearchURL(t)
				cfg.SearchIndex = "test-" + strings.ReplaceAll(uuid.NewString(), "-", "")
				oldOpenSearchCleanup(t, cfg.OpenSearchURL, cfg.SearchIndex)
			}
			st, err := pipeline.OpenStore(t.Context(), cfg)
			require.NoError(t, err)
			defer st.Close()
			const n = 30
			seedDatasets(t, st, n)

			p, err := pipeline.New(context.Background(), cfg)
			require.NoError(t, err)
			t.Cleanup(p.Close)
			require.NoError(t, p.Start(context.Background())) // a router closed unstarted waits 30 s
			require.NoError(t, p.Index().Refresh(t.Context()))
			r, err := search.Reconcile(t.Context(), st, p.Index(), "", false)
			require.NoError(t, err)
			require.True(t, r.Clean(), "%d datasets without a document", len(r.Missing))
		})
	}
}
