package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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
