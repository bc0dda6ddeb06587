package ckan_test

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/feeds/feedstest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// serveCKAN serves the CKAN-compatible API of the catalog in st (no search index: a CKAN
// harvester pages package_search without q, which the store answers).
func serveCKAN(t *testing.T, st store.Store) string {
	t.Helper()
	h, err := api.New(api.Config{}, api.Deps{Store: st, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// record is what a chained catalog must carry of a dataset unchanged.
type record = feedstest.Carried

// catalogOf reads every live dataset of st by its DCAT-US identifier (the original one, in a
// catalog harvested through CKAN APIs), texts and keywords trimmed as CKAN stores them.
func catalogOf(t *testing.T, st store.Store) map[string]record {
	t.Helper()
	out := map[string]record{}
	for _, d := range feedstest.Live(t, st) {
		id, rec := feedstest.CarriedOf(t, d.DCAT, true)
		_, dup := out[id]
		require.False(t, dup, "identifier %q twice", id)
		out[id] = rec
	}
	return out
}

// TestCatalogChain: a second Harvester harvests the first's CKAN API as a ckan source and
// finds every live dataset again by its original identifier (the "identifier" extra), with
// equal title, description, keywords, distribution URLs and modified; a re-harvest is all
// unchanged; one record changed and one deleted at the first are one update and one delete at
// the second; a third Harvester chained after the second ends the same. The first and third
// run on Postgres, the second on SQLite; the first harvests two corpus catalogs (350 datasets,
// so the CKAN harvester pages) from an agency's web server.
func TestCatalogChain(t *testing.T) {
	t.Parallel()
	h1 := pipelinetest.New(t)
	gsa, cfpb := corpustest.NewServer(t), corpustest.NewServer(t)
	gsa.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	cfpbPath := corpustest.Path(t, "dcatus/agency-cfpb-2025-07.data.json")
	cfpb.Serve(cfpbPath)
	cfpbSource := pipelinetest.Source{URL: cfpb.URL(), SchemaType: pipelinetest.Federal, Organization: "Consumer Financial Protection Bureau"}
	for _, src := range []pipelinetest.Source{
		{URL: gsa.URL(), SchemaType: pipelinetest.Federal, Organization: "General Services Administration"}, cfpbSource} {
		pipelinetest.MustComplete(t, h1.Harvest(t, src))
	}
	want := catalogOf(t, h1.Store)
	require.Greater(t, len(want), 300)

	// The second: SQLite and bleve in its data directory.
	h2 := pipelinetest.New(t)
	h2.Config.DatabaseURL, h2.Config.NATSURL = "", ""
	src2 := pipelinetest.Source{URL: serveCKAN(t, h1.Store), SourceType: harvest.SourceCKAN, SchemaType: pipelinetest.NonFederal}
	rep := h2.Harvest(t, src2)
	pipelinetest.MustComplete(t, rep)
	require.Equal(t, len(want), rep.Added, "errored: %d", rep.Errored)
	st2, err := sqlite.Open(t.Context(), filepath.Join(h2.Config.DataDir, "harvester.db"))
	require.NoError(t, err)
	t.Cleanup(st2.Close)
	requireSameCatalog(t, want, catalogOf(t, st2))
	rep = h2.Harvest(t, src2)
	pipelinetest.MustComplete(t, rep)
	require.Equal(t, counts{Total: len(want), Unchanged: len(want)}, countsOf(rep), "a re-harvest is all unchanged")

	h3 := pipelinetest.New(t)
	src3 := pipelinetest.Source{URL: serveCKAN(t, st2), SourceType: harvest.SourceCKAN, SchemaType: pipelinetest.NonFederal}
	rep = h3.Harvest(t, src3)
	pipelinetest.MustComplete(t, rep)
	require.Equal(t, len(want), rep.Added)
	requireSameCatalog(t, want, catalogOf(t, h3.Store))

	// At the first: one record's title changed, another deleted.
	var doc map[string]any
	raw, err := os.ReadFile(cfpbPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &doc))
	datasets := doc["dataset"].([]any)
	datasets[1].(map[string]any)["title"] = "Changed at the first catalog"
	doc["dataset"] = datasets[1:]
	raw, err = json.Marshal(doc)
	require.NoError(t, err)
	changed := filepath.Join(t.TempDir(), "data.json")
	require.NoError(t, os.WriteFile(changed, raw, 0o600))
	cfpb.Serve(changed)
	rep = h1.Harvest(t, cfpbSource)
	pipelinetest.MustComplete(t, rep)
	require.Equal(t, 1, rep.Updated)
	require.Equal(t, 1, rep.Deleted)
	want = catalogOf(t, h1.Store)

	for _, next := range []struct {
		h   *pipelinetest.Harness
		src pipelinetest.Source
		st  store.Store
	}{{h2, src2, st2}, {h3, src3, h3.Store}} {
		rep = next.h.Harvest(t, next.src)
		pipelinetest.MustComplete(t, rep)
		require.Equal(t, counts{Total: len(want) + 1, Updated: 1, Deleted: 1, Unchanged: len(want) - 1}, countsOf(rep))
		requireSameCatalog(t, want, catalogOf(t, next.st))
	}
}

// counts are a job's outcome counts (harvest.Counts without the validated, warned and held
// tallies).
type counts struct{ Total, Added, Updated, Deleted, Unchanged, Errored int }

func countsOf(r pipelinetest.Report) counts {
	return counts{r.Total, r.Added, r.Updated, r.Deleted, r.Unchanged, r.Errored}
}

// requireSameCatalog fails unless got holds every dataset of want, equal, and nothing else;
// it names the datasets that differ.
func requireSameCatalog(t *testing.T, want, got map[string]record) {
	t.Helper()
	feedstest.SameCatalog(t, want, got, "the chained catalog")
}

// TestCatalogCycle: a Harvester that harvests its own CKAN API (a cycle) gets every dataset a
// second time: held as a cross-source duplicate of the original where they share a landing
// page or download URLs, live otherwise (the first harvest of the cycle may then meet the
// catalog growing under its listing, and fail without deleting anything). From then on the
// ckan source skips its own datasets served back to it, so each harvest lists the original
// datasets once and the catalog does not grow.
func TestCatalogCycle(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	h.Corpus.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	pipelinetest.MustComplete(t, h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal}))
	originals := len(catalogOf(t, h.Store))
	self := pipelinetest.Source{URL: serveCKAN(t, h.Store), SourceType: harvest.SourceCKAN, SchemaType: pipelinetest.NonFederal}
	live := func() int {
		st, err := h.Store.DatasetPageStats(t.Context(), &store.DatasetPageParams{})
		require.NoError(t, err)
		return st.Count
	}
	rep := h.Harvest(t, self)
	require.Zero(t, rep.Deleted)
	if rep.Status != string(harvest.JobComplete) { // the catalog grew under the first listing
		// the pager guard saw it by the count (changed between pages) or by a page longer than
		// the count leaves (new datasets, with time-ordered ids, come last in id order)
		require.Regexp(t, `the total changed mid-listing|the count is smaller than the listing`, strings.Join(rep.JobErrors, " "))
		rep = h.Harvest(t, self)
		pipelinetest.MustComplete(t, rep)
	}
	after := live()
	require.Less(t, after, 2*originals, "most copies are held")
	for i := range 2 {
		rep = h.Harvest(t, self)
		pipelinetest.MustComplete(t, rep)
		require.Equal(t, originals, rep.Total, "harvest %d of the cycle lists the originals once", i+1)
		require.Equal(t, originals, rep.Unchanged, "harvest %d of the cycle changes nothing", i+1)
		require.Equal(t, after, live(), "the catalog does not grow")
	}
}
