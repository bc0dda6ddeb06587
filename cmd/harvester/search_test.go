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

	// 1. DHS: 1,250 datasets, 1,250 documents; a word of one title finds it.
	const dhsOrg = "Department of Homeland Security"
	b.srv.Serve(corpustest.Path(t, "dcatus/agency-dhs-2025-07.data.json"))
	dhs, code := b.harvestURL(t, federal, "--organization", dhsOrg)
	require.Equal(t, exitOK, code)
	require.Equal(t, "complete", dhs.Status)
	dhsIDs := datasetIDs(t, b.st, dhs.SourceID)
	require.Len(t, dhsIDs, 1250)
	require.Equal(t, dhsIDs, sb.indexed(t, dhs.SourceID))

	ds, err := b.st.DatasetList(t.Context(), &store.DatasetListParams{SourceID: dhs.SourceID})
	require.NoError(t, err)
	var target *store.Dataset
	var title string
	for _, d := range ds {
		var rec struct{ Title string }
		require.NoError(t, json.Unmarshal(d.DCAT, &rec))
		if strings.Contains(rec.Title, "Cybersecurity") {
			target, title = d, rec.Title
			break
		}
	}
	require.NotNil(t, target, "a DHS title with Cybersecurity")
	code, out := b.runIndexCommand(t, "search", title, "--per-page", "100")
	require.Equal(t, exitOK, code)
	var res search.Result
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Positive(t, res.Total)
	found := false
	for _, h := range res.Hits {
		found = found || (h.ID == target.ID && h.Title == title)
	}
	require.True(t, found, "searching %q finds dataset %s: %s", title, target.ID, out)
	require.NotEmpty(t, res.Facets["keyword"])

	// The README's example: --organization gave the source its organization, and the keyword
	// filter ignores case (the catalog writes "Cybersecurity").
	cyber := map[string]bool{}
	for _, d := range ds {
		var rec struct{ Keyword []string }
		if json.Unmarshal(d.DCAT, &rec) == nil && slices.ContainsFunc(rec.Keyword, func(k string) bool {
			return strings.EqualFold(k, "cybersecurity")
		}) {
			cyber[d.ID] = true
		}
	}
	require.NotEmpty(t, cyber)
	for _, args := range [][]string{{"--organization", dhsOrg, "--keyword", "cybersecurity"},
		{"--organization", "department of homeland security", "--keyword", "CyberSecurity"}} {
		code, out = b.runIndexCommand(t, append([]string{"search"}, args...)...)
		require.Equal(t, exitOK, code, out)
		res = search.Result{}
		require.NoError(t, json.Unmarshal([]byte(out), &res), out)
		require.Equal(t, len(cyber), res.Total, "%v: %s", args, out)
		for _, h := range res.Hits {
			require.True(t, cyber[h.ID], h.ID)
			require.Equal(t, dhsOrg, h.Organization)
		}
		require.Equal(t, []search.Facet{{Value: dhsOrg, Count: len(cyber)}}, res.Facets["organization"])
		require.Contains(t, res.Facets["keyword"], search.Facet{Value: "Cybersecurity", Count: len(cyber)},
			"the facet shows the keyword as published")
	}

	// 2. GSA January then July (another source): the index holds exactly the July set; the
	// documents of datasets July dropped are gone.
	gsaSrv := corpustest.NewServer(t)
	gsaSrv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	jan, code := b.harvest(t, "--url", gsaSrv.URL(), "--schema-type", federal)
	require.Equal(t, exitOK, code)
	janIDs := datasetIDs(t, b.st, jan.SourceID)
	require.Equal(t, janIDs, sb.indexed(t, jan.SourceID))
	gsaSrv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json"))
	const gsaOrg = "General Services Administration"
	july, code := b.harvest(t, "--url", gsaSrv.URL(), "--schema-type", federal, "--organization", gsaOrg)
	require.Equal(t, exitOK, code)
	require.Equal(t, jan.SourceID, july.SourceID)
	julyIDs := datasetIDs(t, b.st, july.SourceID)
	require.Len(t, julyIDs, len(catalogRecords(t, "dcatus/agency-gsa-2025-07.data.json")))
	require.Equal(t, julyIDs, sb.indexed(t, july.SourceID))
	dropped := 0
	for id := range janIDs {
		if !julyIDs[id] {
			dropped++
		}
	}
	require.Equal(t, july.Deleted, dropped, "each deleted record's document is gone")
	// --organization attached the existing source; the organization facet counts each source's.
	code, out = b.runIndexCommand(t, "search", "--organization", gsaOrg, "--per-page", "1")
	require.Equal(t, exitOK, code, out)
	res = search.Result{}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Equal(t, july.Added+july.Updated+july.Unchanged, res.Total, out)
	orgs, _, err := b.st.OrganizationList(t.Context(), &store.PageParams{})
	require.NoError(t, err)
	require.Len(t, orgs, 2, "one organization each, reused by name")

	// 3. reconcile finds a document deleted behind Harvester's back; --fix restores it.
	var victim string
	for id := range julyIDs {
		victim = id
		break
	}
	errs, err := sb.idx.Apply(t.Context(), []search.Op{{ID: victim}})
	require.NoError(t, err)
	require.NoError(t, errs[0])
	require.NoError(t, sb.idx.Refresh(t.Context()))
	code, out = b.runIndexCommand(t, "reconcile")
	require.Equal(t, exitJobError, code, out)
	var rep search.ReconcileReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Equal(t, []string{victim}, rep.Missing)
	require.Empty(t, rep.Orphaned)
	require.Equal(t, len(julyIDs)+len(dhsIDs), rep.Datasets)
	code, out = b.runIndexCommand(t, "reconcile", "--fix")
	require.Equal(t, exitOK, code, out)
	require.True(t, sb.indexed(t, july.SourceID)[victim], "restored")
	code, out = b.runIndexCommand(t, "reconcile")
	require.Equal(t, exitOK, code, "clean after --fix: %s", out)

	// 4. clear empties the source's documents and leaves the other source's.
	cleared, code := b.harvest(t, "--url", gsaSrv.URL(), "--schema-type", federal, "--job-type", "clear")
	require.Equal(t, exitOK, code)
	require.Equal(t, len(julyIDs), cleared.Deleted)
	require.Empty(t, sb.indexed(t, july.SourceID))
	require.Equal(t, dhsIDs, sb.indexed(t, dhs.SourceID))

	// 5. reindex rebuilds the whole index from the table.
	code, out = b.runIndexCommand(t, "reindex")
	require.Equal(t, exitOK, code, out)
	require.JSONEq(t, `{"documents": 1250}`, out)
	require.Equal(t, dhsIDs, sb.indexed(t, dhs.SourceID))
	code, out = b.runIndexCommand(t, "reindex", "--source", dhs.SourceID)
	require.Equal(t, exitOK, code, out)
	require.Equal(t, dhsIDs, sb.indexed(t, dhs.SourceID))
}

// TestIndexFailureIsAnErrorOutcome: when OpenSearch refuses every write (a write block on the
// index), each record settles as an error naming the index's reason, never as a success; once
// the block is lifted, the next harvest indexes them all.
func TestIndexFailureIsAnErrorOutcome(t *testing.T) {
	t.Parallel()
	sb := opensearchBackend(t)
	b := setup(t)
	b.extra = sb.flags
	os := sb.idx.(*opensearch.Index)
	setBlock := func(on bool) {
		require.NoError(t, os.SetWriteBlock(t.Context(), on))
	}
	setBlock(true)
	file := corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json")
	b.srv.Serve(file)
	first, code := b.harvestURL(t, federal)
	require.Equal(t, exitOK, code)
	total := len(catalogRecords(t, "dcatus/agency-gsa-2025-07.data.json"))
	require.Equal(t, total, first.Errored, "every record's indexing failed")
	require.Zero(t, first.Added)
	errs, _, err := b.st.RecordErrorList(t.Context(), &store.RecordErrorListParams{JobID: first.JobID, PageParams: store.PageParams{Limit: 1}})
	require.NoError(t, err)
	require.NotEmpty(t, errs)
	require.Contains(t, errs[0].Message, "search index")
	require.Contains(t, errs[0].Message, "cluster_block_exception")

	setBlock(false)
	second, code := b.harvestURL(t, federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, total, second.Added+second.Updated, "errored records are harvested again")
	require.Zero(t, second.Errored)
	require.Equal(t, datasetIDs(t, b.st, second.SourceID), sb.indexed(t, second.SourceID))
}
