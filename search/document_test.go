package search_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

func TestFromDataset(t *testing.T) {
	d := &store.Dataset{ID: "id1", Slug: "slug", SourceID: "src", Identifier: "ident", RecordID: "rec",
		DCAT: json.RawMessage(`{"title": " Wells ", "description": "D", "keyword": ["a", "", 3, "b"], "theme": "geospatial",
		"publisher": {"name": "USGS"}, "landingPage": "https://x.gov", "modified": "2024-05-01", "issued": "R/P1Y",
		"spatial": "-10 20 30 40", "distribution": [{"title": "CSV", "format": "CSV"}, {"mediaType": "text/html"}, "junk"]}`)}
	doc := search.FromDataset(d, "Org")
	require.Equal(t, "Wells", doc.Title)
	require.Equal(t, []string{"a", "b"}, doc.Keyword)
	require.Equal(t, []string{"geospatial"}, doc.Theme)
	require.Equal(t, "USGS", doc.Publisher)
	require.Equal(t, "Org", doc.Organization)
	require.Equal(t, "2024-05-01T00:00:00Z", doc.Modified)
	require.Empty(t, doc.Issued, "a repeating interval is not a date")
	require.Equal(t, []string{"CSV"}, doc.DistributionTitle)
	require.Equal(t, []string{"CSV", "text/html"}, doc.DistributionFormat)
	require.Equal(t, &search.Extent{West: -10, South: 20, East: 30, North: 40}, doc.Extent)
	require.JSONEq(t, string(d.DCAT), string(doc.DCAT))

	bad := search.FromDataset(&store.Dataset{ID: "x", DCAT: json.RawMessage(`[1]`)}, "")
	require.Equal(t, "x", bad.ID, "a record that is not an object still gets a document")
}

func TestSpatialBBox(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want *search.BBox
	}{
		{"-124.5,32.5,-114.1,42.0", &search.BBox{West: -124.5, South: 32.5, East: -114.1, North: 42}},
		{"-124.5 32.5 -114.1 42.0", &search.BBox{West: -124.5, South: 32.5, East: -114.1, North: 42}},
		{"170,-20,-170,-10", &search.BBox{West: 170, South: -20, East: -170, North: -10}}, // across the 180th meridian
		{"1,2,1,2", &search.BBox{West: 1, South: 2, East: 1, North: 2}},
		{map[string]any{"type": "Point", "coordinates": []any{5.0, 6.0}}, &search.BBox{West: 5, South: 6, East: 5, North: 6}},
		{`{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,5],[0,0]]]}`, &search.BBox{West: 0, South: 0, East: 10, North: 5}},
		{map[string]any{"type": "envelope", "coordinates": []any{[]any{-10.0, 40.0}, []any{30.0, 20.0}}}, &search.BBox{West: -10, South: 20, East: 30, North: 40}},
		{map[string]any{"type": "Polygon", "bbox": []any{170.0, -20.0, -170.0, -10.0}, "coordinates": []any{}}, &search.BBox{West: 170, South: -20, East: -170, North: -10}},
		{"POLYGON ((-77.1 38.8, -76.9 38.8, -76.9 39.0, -77.1 38.8))", &search.BBox{West: -77.1, South: 38.8, East: -76.9, North: 39}},
		{"point(1.5 2.5)", &search.BBox{West: 1.5, South: 2.5, East: 1.5, North: 2.5}},
		{"Ohio", nil},
		{"POLYGON EMPTY", nil},
		{"1,50,2,40", nil}, // south of north reversed
		{"1,2,200,3", nil}, // out of range
		{"1,2,3", nil},     // three numbers
		{`{"type":`, nil},  // broken JSON
		{[]any{1.0}, nil},  // not a geometry
		{map[string]any{"type": "Polygon"}, nil},
	} {
		require.Equal(t, tc.want, search.SpatialBBox(tc.in), "%v", tc.in)
	}
}

func TestBBoxIntersects(t *testing.T) {
	box := func(s string) search.BBox {
		b, err := search.ParseBBox(s)
		require.NoError(t, err)
		return *b
	}
	for _, tc := range []struct {
		query, extent string
		want          bool
	}{
		{"-125,32,-114,42", "-124.5,32.5,-114.1,42.0", true}, // inside
		{"-80,30,-70,40", "-124.5,32.5,-114.1,42.0", false},  // disjoint by longitude
		{"-125,0,-114,10", "-124.5,32.5,-114.1,42.0", false}, // disjoint by latitude
		{"-114.1,42,0,50", "-124.5,32.5,-114.1,42.0", true},  // touching corner
		{"-180,-90,180,90", "170,-20,-170,-10", true},        // the world
		{"175,-15,179,-14", "170,-20,-170,-10", true},        // the east part of a crossing extent
		{"-179,-15,-175,-14", "170,-20,-170,-10", true},      // its west part
		{"0,-15,10,-14", "170,-20,-170,-10", false},          // the other side of the world
		{"179,-15,-179,-14", "-5,-20,5,-10", false},          // a crossing query far away
		{"179,-15,-179,-14", "178,-20,179.5,-10", true},      // a crossing query meets a box east of 178
		{"179,-15,-179,-14", "-179.5,-20,-178,-10", true},    // and one west of -178
		{"170,-20,-170,-10", "175,-20,-175,-10", true},       // two crossing boxes
		{"-180,0,-179,1", "179,0,180,1", true},               // -180 and 180 are one meridian: touching
		{"-180,0,-179,1", "179,0,179.5,1", false},            // near it but apart
	} {
		require.Equal(t, tc.want, box(tc.query).Intersects(*search.ExtentOf(box(tc.extent))), "%s ∩ %s", tc.query, tc.extent)
	}
}

func TestParseBBox(t *testing.T) {
	b, err := search.ParseBBox(" -10, 20 ,30,40")
	require.NoError(t, err)
	require.Equal(t, search.BBox{West: -10, South: 20, East: 30, North: 40}, *b)
	require.Equal(t, "-10,20,30,40", b.String())
	for _, bad := range []string{"", "1,2,3", "a,b,c,d", "0,50,1,40", "0,0,181,1", "0,-91,1,1", "NaN,0,1,1", "1,2,3,4,5"} {
		_, err := search.ParseBBox(bad)
		require.Error(t, err, bad)
	}
}

func TestParseText(t *testing.T) {
	require.Equal(t, []search.Term{{Text: "water"}, {Text: "quality data", Phrase: true}, {Text: "ohio"}},
		search.ParseText(`water  "quality   data" ohio`))
	require.Equal(t, []search.Term{{Text: "a"}, {Text: "open phrase", Phrase: true}}, search.ParseText(`a "open phrase`))
	require.Empty(t, search.ParseText(` "" `))
}

func TestNormalize(t *testing.T) {
	q, err := search.Query{Organization: "O", Keyword: "K", SourceID: "S", Sort: "relevance",
		Filters: []search.Filter{{Field: "theme", Value: "T", Exclude: true}}}.Normalize()
	require.NoError(t, err)
	require.Equal(t, []search.Filter{{Field: "keyword", Value: "K"}, {Field: "organization", Value: "O"},
		{Field: "source_id", Value: "S"}, {Field: "theme", Value: "T", Exclude: true}}, q.Filters)
	require.Empty(t, q.Organization+q.Keyword+q.SourceID+q.Sort)
	for _, bad := range []search.Query{{Sort: "popularity"}, {Filters: []search.Filter{{Field: "tags", Value: "x"}}},
		{BBox: &search.BBox{South: 10, North: 0}}, {PerPage: search.MaxPerPage + 1}, {Page: -1}} {
		_, err := bad.Normalize()
		require.Error(t, err, "%+v", bad)
	}
	_, err = search.Query{PerPage: 1000, Page: 11}.Normalize()
	require.ErrorIs(t, err, search.ErrTooDeep)
	_, err = search.Query{Text: strings.Repeat("word ", search.MaxTextTerms+1)}.Normalize()
	require.ErrorIs(t, err, search.ErrTooLong)
	_, err = search.Query{Text: strings.Repeat("x", search.MaxTextBytes+1)}.Normalize()
	require.ErrorIs(t, err, search.ErrTooLong)
}

func TestSnippet(t *testing.T) {
	require.Equal(t, "Short text.", search.Snippet(" Short\n text. "))
	long := strings.Repeat("word ", 100)
	s := search.Snippet(long)
	require.LessOrEqual(t, utf8.RuneCountInString(s), search.SnippetMax)
	require.True(t, strings.HasSuffix(s, "word…"), s)
	require.LessOrEqual(t, utf8.RuneCountInString(search.Snippet(strings.Repeat("é", 1000))), search.SnippetMax)
}
