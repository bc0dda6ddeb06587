package bleve

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
)

// TestUninvertedFacetsEqualFacetBuilders: the facet counts from the uninverted fields equal bleve's
// facet builders' (the counts, the order, the cut at FacetSize), the pages sorted by title
// and by modified from them equal bleve's (ties by id, documents without a value last), and the
// pages by relevance that the pass collecting the hits scored (scoredMatches) equal bleve's
// collector's, scores and ties by id alike, for the
// match-all page, text, filters, an exclusion and a box, over several segments with documents updated and deleted
// (deleted documents stay in their segments' postings until a merge), twice (the second time
// from the cache).
func TestUninvertedFacetsEqualFacetBuilders(t *testing.T) {
	x, err := open(filepath.Join(t.TempDir(), "idx"), settings())
	require.NoError(t, err)
	defer x.Close()
	id, doc := facetFixture()
	apply := func(ops []search.Op) {
		errs, err := x.Apply(t.Context(), ops)
		require.NoError(t, err)
		for _, e := range errs {
			require.NoError(t, e)
		}
	}
	for b := range 6 { // one segment a batch, at least until the merger runs
		var ops []search.Op
		for i := b * 100; i < (b+1)*100; i++ {
			d := doc(i, 0)
			ops = append(ops, search.Op{ID: d.ID, Doc: &d})
		}
		apply(ops)
	}
	var ops []search.Op
	for i := 0; i < 600; i += 7 { // updates: the old versions' postings remain, deleted
		d := doc(i, 1)
		ops = append(ops, search.Op{ID: d.ID, Doc: &d})
	}
	for i := 3; i < 600; i += 11 {
		ops = append(ops, search.Op{ID: id(i)})
	}
	apply(ops)
	queries := []search.Query{
		{},
		{FacetSize: 3},
		{Text: "water"},
		{Text: "air quality"},
		{Text: "water", Page: 3},
		{Text: "air quality water", Page: 2, PerPage: 7},
		{Text: "dataset", Filters: []search.Filter{{Field: search.FieldOrganization, Value: "gsa"}}, Page: 2},
		{Filters: []search.Filter{{Field: search.FieldOrganization, Value: "gsa"}}},
		{Filters: []search.Filter{{Field: search.FieldKeyword, Value: "kw-1"}, {Field: search.FieldFormat, Value: "json", Exclude: true}}},
		{Text: "dataset", BBox: &search.BBox{West: -101, South: 29, East: -98, North: 32}},
		{Text: "nothing-matches-this"},
		{Page: 2},
		{Page: 27},
		{Sort: search.SortModified},
		{Sort: search.SortModified, Page: 3},
		{Sort: search.SortModified, Page: 27},
		{Text: "water", Sort: search.SortTitle, Page: 2},
		{Filters: []search.Filter{{Field: search.FieldTheme, Value: "theme 1"}}, Sort: search.SortModified, PerPage: 50},
	}
	defer func(n int) { uninvertMinHits = n }(uninvertMinHits)
	for _, q := range append(queries, queries...) {
		uninvertMinHits = 1 << 30
		want, err := x.Search(t.Context(), q)
		require.NoError(t, err)
		x.cache.invalidate()
		uninvertMinHits = 0
		got, err := x.Search(t.Context(), q)
		require.NoError(t, err)
		x.cache.invalidate()
		require.Equal(t, want.Total, got.Total, "query %+v", q)
		require.Equal(t, want.Facets, got.Facets, "query %+v", q)
		require.Equal(t, ids(want), ids(got), "query %+v", q)
		require.Equal(t, scores(want), scores(got), "query %+v", q)
		if q.Text == "" && len(q.Filters) == 0 {
			require.Equal(t, 600-55, got.Total)
			require.NotEmpty(t, got.Facets[search.FieldKeyword])
		}
	}
}

// facetFixture is TestUninvertedFacetsEqualFacetBuilders' documents: id(i) is document i's id
// (in another order than the documents are put in: a segment's own order is not the id order),
// doc(i, version) the document, with ties, missing titles and dates, and some extents.
func facetFixture() (id func(int) string, doc func(i, version int) search.Document) {
	id = func(i int) string { return fmt.Sprintf("d%04d", (i*337)%600) }
	doc = func(i, version int) search.Document {
		d := search.Document{ID: id(i), Identifier: fmt.Sprintf("id-%d", i), SourceID: "s",
			Title: fmt.Sprintf("Dataset %d about water v%d", i, version), Organization: []string{"GSA", "DOL", "VA"}[i%3],
			Keyword: []string{fmt.Sprintf("kw-%d", i%17), fmt.Sprintf("kw-%d", (i+version)%5)}, Theme: []string{fmt.Sprintf("Theme %d", i%4)},
			Publisher: fmt.Sprintf("Publisher %d", (i*7)%11), DistributionFormat: []string{"CSV", []string{"JSON", "XML", "CSV"}[(i+version)%3]}}
		if i%2 == 0 {
			d.Description = "air quality"
		}
		switch {
		case i%9 == 0: // no title: last in the title order
			d.Title = ""
		case i%4 == 0: // ties, ordered by id
			d.Title = "Dataset about water"
		}
		if i%3 != 0 { // with ties; the others without a date, last
			d.Modified = fmt.Sprintf("2026-01-%02dT00:00:00Z", i%28+1)
		}
		if i%5 == 0 {
			d.Extent = &search.Extent{West: -100, South: 30, East: -99, North: 31}
		}
		d.TitleSort = search.SortKey(d.Title)
		return d
	}
	return id, doc
}

func scores(r *search.Result) []float64 {
	var out []float64
	for _, h := range r.Hits {
		out = append(out, h.Score)
	}
	return out
}

func ids(r *search.Result) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.ID)
	}
	return out
}
