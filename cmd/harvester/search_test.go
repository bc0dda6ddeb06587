package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/bleve"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/search/searchtest"
	"github.com/harvester-dev/harvester/store"
)

// searchBackend is a fresh search index for one test and the flags that select it.
type searchBackend struct {
	idx   search.Index
	flags []string
}

func bleveBackend(t *testing.T, b *testBundle) searchBackend {
	dataDir := t.TempDir()
	dir, err := pipeline.BleveDir(pipeline.Config{DataDir: dataDir, DatabaseURL: b.dbURL, SearchIndex: "test"})
	require.NoError(t, err)
	idx, err := bleve.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { idx.Close() })
	return searchBackend{idx: idx, flags: []string{"--opensearch-url", "", "--data-dir", dataDir, "--search-index", "test"}}
}

// opensearchBackend uses the test OpenSearch node (searchtest.OpenSearchURL).
func opensearchBackend(t *testing.T) searchBackend {
	url := searchtest.OpenSearchURL(t)
	alias := "cmdtest-" + strings.ReplaceAll(uuid.NewString(), "-", "")
	idx, err := opensearch.Open(context.Background(), url, alias)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, idx.Drop(context.Background())) })
	return searchBackend{idx: idx, flags: []string{"--opensearch-url", url, "--search-index", alias}}
}

// indexed returns the ids of a source's documents.
func (s searchBackend) indexed(t *testing.T, sourceID string) map[string]bool {
	t.Helper()
	require.NoError(t, s.idx.Refresh(t.Context()))
	out := map[string]bool{}
	require.NoError(t, s.idx.Scan(t.Context(), sourceID, func(e search.Entry) error {
		out[e.ID] = true
		return nil
	}))
	return out
}

func datasetIDs(t *testing.T, st store.Store, sourceID string) map[string]bool {
	t.Helper()
	ds, err := st.DatasetList(t.Context(), &store.DatasetListParams{SourceID: sourceID})
	require.NoError(t, err)
	out := map[string]bool{}
	for _, d := range ds {
		out[d.ID] = true
	}
	return out
}

// runIndexCommand runs a search, reindex or reconcile command line with the backend's flags
// against the bundle's database, and returns its exit status and stdout.
func (b *testBundle) runIndexCommand(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append(args, "--database-url", b.dbURL, "--format", "json")
	code := run(context.Background(), append(args, b.extra...), &out, &errOut)
	require.NotEqual(t, exitUsage, code, "stderr: %s", errOut.String())
	return code, out.String()
}

func TestSearchIndex(t *testing.T) {
	t.Parallel()
	remote := func(t *testing.T, _ *testBundle) searchBackend { return opensearchBackend(t) }
	for name, backend := range map[string]func(*testing.T, *testBundle) searchBackend{"bleve": bleveBackend, "opensearch": remote} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testSearchIndex(t, backend)
		})
	}
}

// testSearchIndex is issue 6's acceptance on one backend.
func testSearchIndex(t *testing.T, backend func(*testing.T, *testBundle) searchBackend) {
	b := setup(t)
	sb := backend(t, b)
	b.extra = sb.flags
	r := &searchRun{t: t, b: b, sb: sb}
	r.searchDHS()
	r.gsaJanuaryThenJuly()
	r.reconcile()
	r.clearAndReindex()
}

// searchRun is the steps of testSearchIndex, in order, on one backend.
type searchRun struct {
	t               *testing.T
	b               *testBundle
	sb              searchBackend
	gsaSrv          *corpustest.Server
	dhs, july       jobReport
	dhsIDs, julyIDs map[string]bool
}

const dhsOrg, gsaOrg = "Department of Homeland Security", "General Services Administration"

// search runs `harvester search ARGS` and returns its result.
func (r *searchRun) search(args ...string) search.Result {
	r.t.Helper()
	code, out := r.b.runIndexCommand(r.t, append([]string{"search"}, args...)...)
	require.Equal(r.t, exitOK, code, out)
	var res search.Result
	require.NoError(r.t, json.Unmarshal([]byte(out), &res), out)
	return res
}

// searchDHS: 1. DHS: 1,250 datasets, 1,250 documents; a word of one title finds it.
func (r *searchRun) searchDHS() {
	t, b := r.t, r.b
	b.srv.Serve(corpustest.Path(t, "dcatus/agency-dhs-2025-07.data.json"))
	dhs, code := b.harvestURL(t, federal, "--organization", dhsOrg)
	require.Equal(t, exitOK, code)
	require.Equal(t, "complete", dhs.Status)
	r.dhs, r.dhsIDs = dhs, datasetIDs(t, b.st, dhs.SourceID)
	require.Len(t, r.dhsIDs, 1250)
	require.Equal(t, r.dhsIDs, r.sb.indexed(t, dhs.SourceID))

	ds, err := b.st.DatasetList(t.Context(), &store.DatasetListParams{SourceID: dhs.SourceID})
	require.NoError(t, err)
	var target *store.Dataset
	var title string
	cyber := map[string]bool{}
	for _, d := range ds {
		var rec struct{ Title string }
		require.NoError(t, json.Unmarshal(d.DCAT, &rec))
		if target == nil && strings.Contains(rec.Title, "Cybersecurity") {
			target, title = d, rec.Title
		}
		var kw struct{ Keyword []string }
		if json.Unmarshal(d.DCAT, &kw) == nil &&
			slices.ContainsFunc(kw.Keyword, func(k string) bool { return strings.EqualFold(k, "cybersecurity") }) {
			cyber[d.ID] = true
		}
	}
	require.NotNil(t, target, "a DHS title with Cybersecurity")
	res := r.search(title, "--per-page", "100")
	require.Positive(t, res.Total)
	require.True(t, slices.ContainsFunc(res.Hits, func(h search.Hit) bool { return h.ID == target.ID && h.Title == title }),
		"searching %q finds dataset %s: %+v", title, target.ID, res.Hits)
	require.NotEmpty(t, res.Facets["keyword"])

	// docs/search.md's example: --organization gave the source its organization, and the keyword
	// filter ignores case (the catalog writes "Cybersecurity").
	require.NotEmpty(t, cyber)
	for _, args := range [][]string{{"--organization", dhsOrg, "--keyword", "cybersecurity"},
		{"--organization", "department of homeland security", "--keyword", "CyberSecurity"}} {
		res = r.search(args...)
		require.Equal(t, len(cyber), res.Total, "%v: %+v", args, res)
		for _, h := range res.Hits {
			require.True(t, cyber[h.ID], h.ID)
			require.Equal(t, dhsOrg, h.Organization)
		}
		require.Equal(t, []search.Facet{{Value: dhsOrg, Count: len(cyber)}}, res.Facets["organization"])
		require.Contains(t, res.Facets["keyword"], search.Facet{Value: "Cybersecurity", Count: len(cyber)},
			"the facet shows the keyword as published")
	}
}

// gsaJanuaryThenJuly: 2. GSA January then July (another source): the index holds exactly
// the July set; the documents of datasets July dropped are gone.
func (r *searchRun) gsaJanuaryThenJuly() {
	t, b := r.t, r.b
	r.gsaSrv = corpustest.NewServer(t)
	r.gsaSrv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	jan, code := b.harvest(t, "--url", r.gsaSrv.URL(), "--schema-type", federal)
	require.Equal(t, exitOK, code)
	janIDs := datasetIDs(t, b.st, jan.SourceID)
	require.Equal(t, janIDs, r.sb.indexed(t, jan.SourceID))
	r.gsaSrv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json"))
	r.july, code = b.harvest(t, "--url", r.gsaSrv.URL(), "--schema-type", federal, "--organization", gsaOrg)
	require.Equal(t, exitOK, code)
	require.Equal(t, jan.SourceID, r.july.SourceID)
	r.julyIDs = datasetIDs(t, b.st, r.july.SourceID)
	require.Len(t, r.julyIDs, len(catalogRecords(t, "dcatus/agency-gsa-2025-07.data.json")))
	require.Equal(t, r.julyIDs, r.sb.indexed(t, r.july.SourceID))
	dropped := 0
	for id := range janIDs {
		if !r.julyIDs[id] {
			dropped++
		}
	}
	require.Equal(t, r.july.Deleted, dropped, "each deleted record's document is gone")
	// --organization attached the existing source; the organization facet counts each source's.
	res := r.search("--organization", gsaOrg, "--per-page", "1")
	require.Equal(t, r.july.Added+r.july.Updated+r.july.Unchanged, res.Total, "%+v", res)
	orgs, _, err := b.st.OrganizationList(t.Context(), &store.PageParams{})
	require.NoError(t, err)
	require.Len(t, orgs, 2, "one organization each, reused by name")
}

// reconcile: 3. reconcile finds a document deleted behind Harvester's back; --fix restores it.
func (r *searchRun) reconcile() {
	t, b := r.t, r.b
	var victim string
	for id := range r.julyIDs {
		victim = id
		break
	}
	errs, err := r.sb.idx.Apply(t.Context(), []search.Op{{ID: victim}})
	require.NoError(t, err)
	require.NoError(t, errs[0])
	require.NoError(t, r.sb.idx.Refresh(t.Context()))
	code, out := b.runIndexCommand(t, "reconcile")
	require.Equal(t, exitJobError, code, out)
	var rep search.ReconcileReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Equal(t, []string{victim}, rep.Missing)
	require.Empty(t, rep.Orphaned)
	require.Equal(t, len(r.julyIDs)+len(r.dhsIDs), rep.Datasets)
	code, out = b.runIndexCommand(t, "reconcile", "--fix")
	require.Equal(t, exitOK, code, out)
	require.True(t, r.sb.indexed(t, r.july.SourceID)[victim], "restored")
	code, out = b.runIndexCommand(t, "reconcile")
	require.Equal(t, exitOK, code, "clean after --fix: %s", out)
}

// clearAndReindex: 4. clear empties the source's documents and leaves the other source's;
// 5. reindex rebuilds the whole index from the table.
func (r *searchRun) clearAndReindex() {
	t, b := r.t, r.b
	cleared, code := b.harvest(t, "--url", r.gsaSrv.URL(), "--schema-type", federal, "--job-type", "clear")
	require.Equal(t, exitOK, code)
	require.Equal(t, len(r.julyIDs), cleared.Deleted)
	require.Empty(t, r.sb.indexed(t, r.july.SourceID))
	require.Equal(t, r.dhsIDs, r.sb.indexed(t, r.dhs.SourceID))

	code, out := b.runIndexCommand(t, "reindex")
	require.Equal(t, exitOK, code, out)
	require.JSONEq(t, `{"documents": 1250}`, out)
	require.Equal(t, r.dhsIDs, r.sb.indexed(t, r.dhs.SourceID))
	code, out = b.runIndexCommand(t, "reindex", "--source", r.dhs.SourceID)
	require.Equal(t, exitOK, code, out)
	require.Equal(t, r.dhsIDs, r.sb.indexed(t, r.dhs.SourceID))
}
