package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// TestSearch: hits, total and facets from the index; filters; paging; 422 past the window.
func TestSearch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var ops []search.Op
	for i, kw := range []string{"water", "water", "roads"} {
		doc := search.FromDataset(&store.Dataset{ID: fmt.Sprintf("d%d", i), SourceID: "s1", Identifier: fmt.Sprint(i),
			DCAT: json.RawMessage(fmt.Sprintf(`{"title": "Survey %d", "keyword": [%q]}`, i, kw))}, "Org A")
		ops = append(ops, search.Op{ID: doc.ID, Doc: &doc})
	}
	errs, err := b.api.search.Apply(t.Context(), ops)
	require.NoError(t, err)
	require.NoError(t, errors.Join(errs...))

	res := decode[search.Result](t, b.get(t, "/api/v1/search?q=survey&per_page=2"))
	require.Equal(t, 3, res.Total)
	require.Len(t, res.Hits, 2)
	require.Equal(t, []search.Facet{{Value: "water", Count: 2}, {Value: "roads", Count: 1}}, res.Facets["keyword"])
	require.Equal(t, []search.Facet{{Value: "Org A", Count: 3}}, res.Facets["organization"])

	res = decode[search.Result](t, b.get(t, "/api/v1/search?q=survey&keyword=roads"))
	require.Equal(t, 1, res.Total)
	require.Equal(t, "d2", res.Hits[0].ID)
	require.Equal(t, "Survey 2", res.Hits[0].Title)

	r := b.get(t, "/api/v1/search?q=survey&page=200&per_page=100")
	require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s", r.body)
	require.Contains(t, string(r.body), "page")
}

// TestSearchWithoutIndex: a server with no index answers 503 with a reason.
func TestSearchWithoutIndex(t *testing.T) {
	t.Parallel()
	b := setup(t, func(_ *Config, d *Deps) { d.Search = nil })
	r := b.get(t, "/api/v1/search?q=x")
	require.Equal(t, http.StatusServiceUnavailable, r.status)
	require.Contains(t, string(r.body), "no search index")
}

// TestSearchPublicParameters: the public search takes repeated filters, exclusions, a bounding
// box, a sort and per_page up to 1000, stays readable when reads are protected, and refuses
// bad parameters with 422 naming them.
func TestSearchPublicParameters(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config, _ *Deps) { c.ProtectReads = true })
	var ops []search.Op
	for i, rec := range []string{
		`{"title": "Alpha wells", "keyword": ["water", "wells"], "distribution": [{"format": "CSV"}], "spatial": "-124.5,32.5,-114.1,42.0", "modified": "2024-01-01"}`,
		`{"title": "Bravo wells", "keyword": ["water"], "distribution": [{"format": "ZIP"}], "spatial": "Ohio", "modified": "2025-01-01"}`,
		`{"title": "Charlie wells", "keyword": ["roads"], "theme": ["Transport"], "publisher": {"name": "DOT"}}`,
	} {
		doc := search.FromDataset(&store.Dataset{ID: fmt.Sprintf("d%d", i), SourceID: "s1", Identifier: fmt.Sprint(i),
			DCAT: json.RawMessage(rec)}, "Org A")
		ops = append(ops, search.Op{ID: doc.ID, Doc: &doc})
	}
	errs, err := b.api.search.Apply(t.Context(), ops)
	require.NoError(t, err)
	require.NoError(t, errors.Join(errs...))
	ids := func(path string) []string {
		r := b.get(t, path)
		require.Equal(t, http.StatusOK, r.status, "%s: %s", path, r.body)
		var res search.Result
		require.NoError(t, json.Unmarshal(r.body, &res))
		out := []string{}
		for _, h := range res.Hits {
			out = append(out, h.ID)
		}
		return out
	}
	require.Equal(t, []string{"d0", "d1", "d2"}, ids("/api/v1/search?per_page=1000"), "public without a key")
	require.Equal(t, []string{"d0"}, ids("/api/v1/search?keyword=water&keyword=wells"))
	require.Equal(t, []string{"d2"}, ids("/api/v1/search?exclude_keyword=water"))
	require.Equal(t, []string{"d0", "d2"}, ids("/api/v1/search?q=wells&exclude_format=zip&sort=title"))
	require.Equal(t, []string{"d2"}, ids("/api/v1/search?theme=transport&publisher=dot"))
	require.Equal(t, []string{"d0"}, ids("/api/v1/search?bbox=-125,30,-110,45"))
	require.Equal(t, []string{"d1", "d0", "d2"}, ids("/api/v1/search?sort=modified"))
	require.Equal(t, []string{"d1"}, ids(`/api/v1/search?q=%22bravo+wells%22`))
	res := decode[search.Result](t, b.get(t, "/api/v1/search?q=alpha"))
	require.Equal(t, []string{"CSV"}, res.Hits[0].Formats)
	require.Equal(t, "2024-01-01T00:00:00Z", res.Hits[0].Modified)
	require.Contains(t, res.Facets, "theme")

	for path, field := range map[string]string{
		"/api/v1/search?bbox=1,2,3":                      "bbox",
		"/api/v1/search?bbox=0,50,1,40":                  "bbox",
		"/api/v1/search?sort=popularity":                 "sort",
		"/api/v1/search?per_page=1001":                   "per_page",
		"/api/v1/search?page=11&per_page=1000":           "page",
		"/api/v1/search?q=" + strings.Repeat("a+", 5000): "q",
		"/api/v1/search?tags=x":                          "tags",
		"/api/v1/search?q=a&q=b":                         "q",
		"/api/v1/search?keyword=":                        "keyword",
	} {
		r := b.get(t, path)
		require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s: %s", path, r.body)
		require.Contains(t, string(r.body), `"`+field+`"`, path)
	}
}
