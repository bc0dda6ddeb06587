package search_test

import (
	"encoding/json"
	"testing"

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
	require.Equal(t, &search.Shape{Type: "envelope", Coordinates: [][]float64{{-10, 40}, {30, 20}}}, doc.BBox)
	require.JSONEq(t, string(d.DCAT), string(doc.DCAT))

	bad := search.FromDataset(&store.Dataset{ID: "x", DCAT: json.RawMessage(`[1]`)}, "")
	require.Equal(t, "x", bad.ID, "a record that is not an object still gets a document")
}

func TestBBox(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want *search.Shape
	}{
		{"-124.5,32.5,-114.1,42.0", &search.Shape{Type: "envelope", Coordinates: [][]float64{{-124.5, 42}, {-114.1, 32.5}}}},
		{"1,2,1,2", &search.Shape{Type: "point", Coordinates: []float64{1, 2}}},
		{map[string]any{"type": "Point", "coordinates": []any{5.0, 6.0}}, &search.Shape{Type: "point", Coordinates: []float64{5, 6}}},
		{`{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,5],[0,0]]]}`, &search.Shape{Type: "envelope", Coordinates: [][]float64{{0, 5}, {10, 0}}}},
		{"Ohio", nil},
		{"1,50,2,40", nil}, // south of north reversed
		{"1,2,200,3", nil}, // out of range
		{"1,2,3", nil},     // three numbers
		{`{"type":`, nil},  // broken JSON
		{[]any{1.0}, nil},  // not a geometry
		{map[string]any{"type": "Polygon"}, nil},
	} {
		require.Equal(t, tc.want, search.BBox(tc.in), "%v", tc.in)
	}
}
