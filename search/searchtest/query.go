package searchtest

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
)

// queryCases are the cases of the public search (issue 35 §3): words and phrases, filters on
// every facet and their exclusion, the bounding box, the sorts, the hit fields and the limits.
var queryCases = []struct {
	name string
	fn   func(*testing.T, search.Index)
}{
	{"AllWordsAndPhrases", testAllWordsAndPhrases},
	{"FacetsOfEveryField", testFacetsOfEveryField},
	{"FiltersAndExclusions", testFiltersAndExclusions},
	{"BBox", testBBox},
	{"SortModifiedAndTitle", testSortModifiedAndTitle},
	{"HitFields", testHitFields},
	{"Limits", testLimits},
	{"RepeatedSearchSeesWrites", testRepeatedSearchSeesWrites},
}

// testRepeatedSearchSeesWrites: the same query asked again after a write (an index, an update,
// a delete) answers from the index as it is now, whatever an implementation caches.
func testRepeatedSearchSeesWrites(t *testing.T, idx search.Index) {
	put(t, idx, doc("r1", "s1", "Org", `{"title": "First", "keyword": ["k"]}`))
	q := search.Query{Filters: []search.Filter{{Field: search.FieldKeyword, Value: "k"}}}
	require.Equal(t, []string{"r1"}, ids(find(t, idx, q)))
	require.Equal(t, []string{"r1"}, ids(find(t, idx, q)))
	put(t, idx, doc("r2", "s1", "Org", `{"title": "Second", "keyword": ["k"]}`))
	require.Equal(t, []string{"r1", "r2"}, ids(find(t, idx, q)))
	put(t, idx, doc("r1", "s1", "Org", `{"title": "Third", "keyword": ["other"]}`))
	res := find(t, idx, q)
	require.Equal(t, []string{"r2"}, ids(res))
	res.Hits[0].Title = "changed by the caller"
	require.Equal(t, "Second", find(t, idx, q).Hits[0].Title, "an answer's copy is the caller's")
	errs, err := idx.Apply(t.Context(), []search.Op{{ID: "r2"}})
	require.NoError(t, err)
	require.NoError(t, errors.Join(errs...))
	require.NoError(t, idx.Refresh(t.Context()))
	require.Empty(t, ids(find(t, idx, q)))
}

// testAllWordsAndPhrases: every word must match (in any field), stop words do not count, and
// a quoted phrase matches its words in order only.
func testAllWordsAndPhrases(t *testing.T, idx search.Index) {
	put(t, idx,
		doc("both", "s1", "Org", `{"title": "Water quality of Ohio rivers"}`),
		doc("split", "s1", "Org", `{"title": "Ohio roads", "description": "Quality of the water in ditches."}`),
		doc("water", "s1", "Org", `{"title": "Water wells"}`),
		doc("reversed", "s1", "Org", `{"title": "Quality water survey"}`),
		doc("kw", "s1", "Org", `{"title": "Lakes", "keyword": ["water quality"]}`),
	)
	require.ElementsMatch(t, []string{"both", "split", "reversed", "kw"}, ids(find(t, idx, search.Query{Text: "water quality"})),
		"all words, each in any field")
	require.ElementsMatch(t, []string{"both", "split"}, ids(find(t, idx, search.Query{Text: "water quality ohio"})))
	require.ElementsMatch(t, []string{"both", "split"}, ids(find(t, idx, search.Query{Text: "the water of ohio"})),
		"stop words do not count")
	require.ElementsMatch(t, []string{"both", "kw"}, ids(find(t, idx, search.Query{Text: `"water quality"`})),
		"a phrase: its words in order, in one field")
	require.ElementsMatch(t, []string{"both"}, ids(find(t, idx, search.Query{Text: `"water quality" ohio`})))
	require.ElementsMatch(t, []string{"both"}, ids(find(t, idx, search.Query{Text: `"ohio rivers`})), "an unclosed quote")
	require.Equal(t, 0, find(t, idx, search.Query{Text: "water volcano"}).Total, "a word no dataset has")
	require.Equal(t, []string{"both"}, ids(find(t, idx, search.Query{Text: "ident-both"})), "the identifier")
}

// facetDocs have a value in every facet field, with spellings that differ in case and accents.
func facetDocs() []search.Document {
	return []search.Document{
		doc("a", "s1", "Org A", `{"title": "Alpha", "keyword": ["water", "rivers"], "theme": ["Environment"],
			"publisher": {"name": "U.S. Geological Survey"}, "distribution": [{"format": "CSV"}, {"format": "CSV"}, {"mediaType": "application/json"}]}`),
		doc("b", "s1", "Org A", `{"title": "Bravo", "keyword": ["water"], "theme": ["Environment", "Geospatial"],
			"publisher": {"name": "U.S. Geological Survey"}, "distribution": [{"format": "ZIP"}]}`),
		doc("c", "s2", "Org B", `{"title": "Charlie", "keyword": ["Water"], "theme": "environment",
			"publisher": {"name": "Énergie Québec"}, "distribution": [{"format": "csv"}]}`),
		doc("d", "s2", "Org B", `{"title": "Delta", "keyword": ["roads"], "publisher": {"name": "DOT"}}`),
	}
}

// testFacetsOfEveryField: each facet counts datasets (not distributions) per published value,
// most first, then by value; facets follow the filters.
func testFacetsOfEveryField(t *testing.T, idx search.Index) {
	put(t, idx, facetDocs()...)
	res := find(t, idx, search.Query{})
	require.Equal(t, 4, res.Total)
	require.Equal(t, map[string][]search.Facet{
		"organization": {{Value: "Org A", Count: 2}, {Value: "Org B", Count: 2}},
		"keyword":      {{Value: "water", Count: 2}, {Value: "Water", Count: 1}, {Value: "rivers", Count: 1}, {Value: "roads", Count: 1}},
		"format":       {{Value: "CSV", Count: 1}, {Value: "ZIP", Count: 1}, {Value: "application/json", Count: 1}, {Value: "csv", Count: 1}},
		"publisher":    {{Value: "U.S. Geological Survey", Count: 2}, {Value: "DOT", Count: 1}, {Value: "Énergie Québec", Count: 1}},
		"theme":        {{Value: "Environment", Count: 2}, {Value: "Geospatial", Count: 1}, {Value: "environment", Count: 1}},
	}, res.Facets)
	res = find(t, idx, search.Query{Filters: []search.Filter{{Field: search.FieldOrganization, Value: "Org B"}}})
	require.Equal(t, []search.Facet{{Value: "Org B", Count: 2}}, res.Facets["organization"])
	require.Equal(t, []search.Facet{{Value: "csv", Count: 1}}, res.Facets["format"])
	res = find(t, idx, search.Query{FacetSize: 1})
	require.Equal(t, []search.Facet{{Value: "water", Count: 2}}, res.Facets["keyword"], "FacetSize values, the most first")
}

// testFiltersAndExclusions: each filter field matches whole values ignoring case and accents;
// Exclude keeps the datasets without the value (and those without the field); filters combine.
func testFiltersAndExclusions(t *testing.T, idx search.Index) {
	put(t, idx, facetDocs()...)
	f := func(fs ...search.Filter) []string { return ids(find(t, idx, search.Query{Filters: fs})) }
	for _, tc := range []struct {
		filter search.Filter
		want   []string
	}{
		{search.Filter{Field: "organization", Value: "org a"}, []string{"a", "b"}},
		{search.Filter{Field: "keyword", Value: "WATER"}, []string{"a", "b", "c"}},
		{search.Filter{Field: "format", Value: "csv"}, []string{"a", "c"}},
		{search.Filter{Field: "format", Value: "application/json"}, []string{"a"}},
		{search.Filter{Field: "publisher", Value: "energie quebec"}, []string{"c"}},
		{search.Filter{Field: "publisher", Value: "geological survey"}, nil}, // whole values only
		{search.Filter{Field: "theme", Value: "geospatial"}, []string{"b"}},
		{search.Filter{Field: "source_id", Value: "s2"}, []string{"c", "d"}},
		{search.Filter{Field: "keyword", Value: "water", Exclude: true}, []string{"d"}},
		{search.Filter{Field: "theme", Value: "environment", Exclude: true}, []string{"d"}},
		{search.Filter{Field: "format", Value: "CSV", Exclude: true}, []string{"b", "d"}},
		{search.Filter{Field: "source_id", Value: "s1", Exclude: true}, []string{"c", "d"}},
	} {
		require.ElementsMatch(t, tc.want, f(tc.filter), "%+v", tc.filter)
	}
	require.ElementsMatch(t, []string{"a"}, f(search.Filter{Field: "keyword", Value: "water"},
		search.Filter{Field: "format", Value: "csv"}, search.Filter{Field: "organization", Value: "Org B", Exclude: true}))
	require.ElementsMatch(t, []string{"a"}, f(search.Filter{Field: "keyword", Value: "water"}, search.Filter{Field: "keyword", Value: "rivers"}),
		"two values of one field: both")
	require.ElementsMatch(t, []string{"c"}, ids(find(t, idx, search.Query{Text: "charlie", Keyword: "water"})), "the older field is a filter")
}

// testBBox: a box keeps the datasets whose extent meets it (edges touching count), whatever
// form the spatial value had; a place name or no spatial value never matches; boxes across
// the 180th meridian work both ways.
func testBBox(t *testing.T, idx search.Index) {
	put(t, idx,
		doc("ca", "s1", "Org", `{"title": "California", "spatial": "-124.5,32.5,-114.1,42.0"}`),
		doc("dc", "s1", "Org", `{"title": "DC point", "spatial": "-77.0,38.9,-77.0,38.9"}`),
		doc("geojson", "s1", "Org", `{"title": "GeoJSON", "spatial": {"type": "Polygon", "coordinates": [[[0,0],[10,0],[10,5],[0,0]]]}}`),
		doc("json-string", "s1", "Org", `{"title": "GeoJSON string", "spatial": "{\"type\":\"Point\",\"coordinates\":[5,2]}"}`),
		doc("fiji", "s1", "Org", `{"title": "Fiji", "spatial": "177,-19,-179,-16"}`),
		doc("place", "s1", "Org", `{"title": "Ohio by name", "spatial": "Ohio"}`),
		doc("none", "s1", "Org", `{"title": "No spatial"}`),
	)
	box := func(w, s, e, n float64) []string {
		return ids(find(t, idx, search.Query{BBox: &search.BBox{West: w, South: s, East: e, North: n}}))
	}
	require.ElementsMatch(t, []string{"ca"}, box(-125, 30, -110, 45), "intersects")
	require.ElementsMatch(t, []string{"ca"}, box(-120, 35, -119, 36), "a box inside the extent")
	require.ElementsMatch(t, []string{"ca", "dc"}, box(-130, 20, -60, 50), "a point inside")
	require.ElementsMatch(t, []string{"dc"}, box(-77, 38.9, -70, 40), "touching a point")
	require.ElementsMatch(t, []string{"ca"}, box(-114.1, 42, -100, 50), "touching a corner")
	require.Empty(t, box(-90, 40, -80, 45), "disjoint: Ohio's box meets no extent, the place name does not count")
	require.ElementsMatch(t, []string{"geojson", "json-string"}, box(4, 1, 6, 3))
	require.ElementsMatch(t, []string{"fiji"}, box(178, -18, 179, -17), "the east part of an extent across the meridian")
	require.ElementsMatch(t, []string{"fiji"}, box(-179.5, -18, -179.2, -17), "its west part")
	require.ElementsMatch(t, []string{"fiji"}, box(170, -20, -170, -10), "a query across the meridian")
	require.Empty(t, box(170, 0, -170, 10), "across the meridian, another latitude")
	require.ElementsMatch(t, []string{"ca", "dc", "geojson", "json-string", "fiji"}, box(-180, -90, 180, 90), "the world: every extent")
	require.ElementsMatch(t, []string{"ca"}, ids(find(t, idx, search.Query{Text: "california",
		BBox: &search.BBox{West: -180, South: -90, East: 180, North: 90}})), "with text")
}

// testSortModifiedAndTitle: SortModified is newest first, datasets without a date (or with one
// that is not a date) last, ties by id; SortTitle is the title's key with text too.
func testSortModifiedAndTitle(t *testing.T, idx search.Index) {
	put(t, idx,
		doc("m1", "s1", "Org", `{"title": "Zulu survey", "modified": "2024-01-02"}`),
		doc("m2", "s1", "Org", `{"title": "alpha survey", "modified": "2025-06-30T12:00:00Z"}`),
		doc("m3", "s1", "Org", `{"title": "Mike survey", "modified": "R/P1D"}`),
		doc("m4", "s1", "Org", `{"title": "Bravo survey", "modified": "2024-01-02"}`),
		doc("m5", "s1", "Org", `{"title": "Echo survey", "modified": "9999-12-31"}`),
		doc("m6", "s1", "Org", `{"title": "Delta survey", "modified": "2023"}`),
	)
	for _, text := range []string{"", "survey"} {
		res := find(t, idx, search.Query{Text: text, Sort: search.SortModified})
		require.Equal(t, []string{"m2", "m1", "m4", "m6", "m3", "m5"}, ids(res), "text %q", text)
		require.Equal(t, "2025-06-30T12:00:00Z", res.Hits[0].Modified)
		require.Equal(t, []string{"m2", "m4", "m6", "m5", "m3", "m1"}, ids(find(t, idx, search.Query{Text: text, Sort: search.SortTitle})))
		var paged []string
		for page := 1; page <= 3; page++ {
			paged = append(paged, ids(find(t, idx, search.Query{Text: text, Sort: search.SortModified, Page: page, PerPage: 2}))...)
		}
		require.Equal(t, []string{"m2", "m1", "m4", "m6", "m3", "m5"}, paged, "pages keep the order")
	}
}

// testHitFields: a hit carries a description snippet, the formats, modified and the publisher.
func testHitFields(t *testing.T, idx search.Index) {
	long := strings.Repeat("Monthly counts of wells. ", 40)
	put(t, idx, doc("h", "s1", "Org", `{"title": "Wells", "description": "`+long+`", "modified": "2024-05-01",
		"publisher": {"name": "USGS"}, "distribution": [{"format": "CSV"}, {"mediaType": "application/zip"}, {"format": "CSV"}]}`))
	h := find(t, idx, search.Query{Text: "wells"}).Hits[0]
	require.Equal(t, search.Snippet(long), h.Description)
	require.Equal(t, []string{"CSV", "application/zip"}, h.Formats)
	require.Equal(t, "2024-05-01T00:00:00Z", h.Modified)
	require.Equal(t, "USGS", h.Publisher)
}

// testLimits: a huge text is refused (ErrTooLong), per_page 1000 pages, a page past MaxWindow
// is ErrTooDeep, a bad box or sort an error.
func testLimits(t *testing.T, idx search.Index) {
	put(t, idx, doc("x", "s1", "Org", `{"title": "Only"}`))
	_, err := idx.Search(t.Context(), search.Query{Text: strings.Repeat("water ", 100000)})
	require.ErrorIs(t, err, search.ErrTooLong)
	res := find(t, idx, search.Query{Text: strings.Repeat("only ", search.MaxTextTerms)})
	require.Equal(t, []string{"x"}, ids(res), "the most words allowed")
	require.Equal(t, []string{"x"}, ids(find(t, idx, search.Query{PerPage: search.MaxPerPage})))
	res = find(t, idx, search.Query{PerPage: search.MaxPerPage, Page: search.MaxWindow / search.MaxPerPage})
	require.Empty(t, res.Hits, "the last page of the window, past the hits")
	require.Equal(t, 1, res.Total)
	_, err = idx.Search(t.Context(), search.Query{PerPage: search.MaxPerPage, Page: search.MaxWindow/search.MaxPerPage + 1})
	require.ErrorIs(t, err, search.ErrTooDeep)
	_, err = idx.Search(t.Context(), search.Query{BBox: &search.BBox{West: 0, South: 10, East: 1, North: 0}})
	require.Error(t, err)
	_, err = idx.Search(t.Context(), search.Query{Sort: "popularity"})
	require.Error(t, err)
	require.Equal(t, 1, find(t, idx, search.Query{Text: `"" * ( ) : \ / - the`}).Total,
		"punctuation and stop words are no error, and no word to match: everything")
	require.Equal(t, 0, find(t, idx, search.Query{Text: `{"a": [1]}`}).Total, "JSON is words too")
}
