package opensearch_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/search/searchtest"
)

func open(t *testing.T) *opensearch.Index {
	alias := "test-" + strings.ReplaceAll(uuid.NewString(), "-", "")
	idx, err := opensearch.Open(t.Context(), searchtest.OpenSearchURL(t), alias)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, idx.Drop(context.Background())) })
	return idx
}

func TestConformance(t *testing.T) {
	searchtest.Run(t, func(t *testing.T) search.Index { return open(t) })
}

// TestOpenKeepsIndex: opening an existing alias again reuses its index and documents.
func TestOpenKeepsIndex(t *testing.T) {
	a := open(t)
	doc := search.Document{ID: "d1", Title: "Kept", Identifier: "x", SourceID: "s"}
	errs, err := a.Apply(t.Context(), []search.Op{{ID: "d1", Doc: &doc}})
	require.NoError(t, err)
	require.NoError(t, errs[0])
	b, err := opensearch.Open(t.Context(), searchtest.OpenSearchURL(t), a.Alias())
	require.NoError(t, err)
	require.NoError(t, b.Refresh(t.Context()))
	res, err := b.Search(t.Context(), search.Query{Text: "kept"})
	require.NoError(t, err)
	require.Equal(t, 1, res.Total)
}

// TestUnreachable: a node that does not answer is a clear error, not a hang.
func TestUnreachable(t *testing.T) {
	_, err := opensearch.Open(t.Context(), "http://127.0.0.1:1", "x")
	require.ErrorContains(t, err, "opensearch at http://127.0.0.1:1")
}

// TestIndexBeforeFolding: an index created before the folded sub-fields (the mapping of
// c40dbf5: plain keyword fields) still filters on the published values, as it did, instead of
// finding nothing; after a Rebuild (harvester reindex) the filters ignore case and accents.
func TestIndexBeforeFolding(t *testing.T) {
	base := searchtest.OpenSearchURL(t)
	alias := "test-" + strings.ReplaceAll(uuid.NewString(), "-", "")
	kw := map[string]any{"type": "keyword"}
	old := map[string]any{"mappings": map[string]any{"dynamic": "strict", "properties": map[string]any{
		"id": kw, "slug": kw, "identifier": kw, "source_id": kw, "record_id": kw, "organization": kw, "keyword": kw,
		"title": map[string]any{"type": "text", "analyzer": "english"}}}}
	body, err := json.Marshal(old)
	require.NoError(t, err)
	for _, req := range []struct{ path, body string }{{"/" + alias + "-1", string(body)}, {"/" + alias + "-1/_alias/" + alias, ""}} {
		r, err := http.NewRequestWithContext(t.Context(), http.MethodPut, base+req.path, strings.NewReader(req.body))
		require.NoError(t, err)
		r.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(r)
		require.NoError(t, err)
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Less(t, resp.StatusCode, 300, string(msg))
	}
	x, err := opensearch.Open(t.Context(), base, alias)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, x.Drop(context.Background())) })

	d := search.Document{ID: "d1", Slug: "s", Title: "Threat feeds", Identifier: "i", SourceID: "s", RecordID: "r",
		Keyword: []string{"Cybersecurity"}, Organization: "Department of Homeland Security"}
	errs, err := x.Apply(t.Context(), []search.Op{{ID: d.ID, Doc: &d}})
	require.NoError(t, err)
	require.NoError(t, errs[0])
	require.NoError(t, x.Refresh(t.Context()))
	total := func(q search.Query) int {
		t.Helper()
		res, err := x.Search(t.Context(), q)
		require.NoError(t, err)
		return res.Total
	}
	require.Equal(t, 1, total(search.Query{Keyword: "Cybersecurity"}), "the published value still filters")
	require.Equal(t, 1, total(search.Query{Organization: "Department of Homeland Security"}))
	require.Equal(t, 0, total(search.Query{Keyword: "cybersecurity"}), "folding needs a reindex")

	require.NoError(t, x.Rebuild(t.Context(), func(put func(search.Document) error) error { return put(d) }))
	require.NoError(t, x.Refresh(t.Context()))
	require.Equal(t, 1, total(search.Query{Keyword: "cybersecurity"}))
	require.Equal(t, 1, total(search.Query{Organization: "department of homeland security"}))
}

// TestMappingCoversDocument: every search.Document field has a property in the mapping and
// every property is a Document field; the mapping is strict, so a field it lacks makes every
// document that has it fail to index.
func TestMappingCoversDocument(t *testing.T) {
	searchtest.RequireMapsDocument(t, opensearch.Properties())
}
