package feeds

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// TestRecordReadsOddShapes: a record's fields are read in the shape asked for, whatever shape
// they were harvested in; a record that is not an object is empty.
func TestRecordReadsOddShapes(t *testing.T) {
	r := ParseRecord([]byte(`{"s":" a ","n":2.50,"b":true,"null":null,"list":["x",1,null,{"name":"y"}],
		"obj":{"fn":"Ann","hasEmail":"mailto:a@x.gov"},"anon":{"k":[1]},"one":{"downloadURL":"u"},"many":[{"a":1},"str",{"b":2}]}`))
	require.Equal(t, "a", r.Text("s"))
	require.Equal(t, "2.5", r.Text("n"))
	require.Equal(t, "true", r.Text("b"))
	require.Equal(t, "", r.Text("null"))
	require.Equal(t, "", r.Text("missing"))
	require.Equal(t, "x, 1, y", r.Text("list"))
	require.Equal(t, "Ann", r.Text("obj"))
	require.Equal(t, `{"k":[1]}`, r.Text("anon"))
	require.Equal(t, []string{"x", "1", "y"}, r.Texts("list"))
	require.Equal(t, []string{"a"}, r.Texts("s"), "a string is one item")
	require.Nil(t, r.Texts("null"))
	require.Len(t, r.Objects("one"), 1, "one object is a list of one")
	require.Len(t, r.Objects("many"), 2, "items that are not objects are left out")
	require.Nil(t, r.Objects("s"))
	require.Equal(t, "mailto:a@x.gov", r.Object("obj").Text("hasEmail"))
	require.Nil(t, r.Object("s"))
	for _, raw := range []string{`[1,2]`, `"x"`, `null`, `not json`, ``} {
		require.Empty(t, ParseRecord([]byte(raw)), raw)
	}
	require.Equal(t, "a@x.gov", Email("MAILTO:a@x.gov"))
	require.Equal(t, "a@x.gov", Email(" a@x.gov "))
}

func TestCut(t *testing.T) {
	require.Equal(t, "abc", Cut("abc", 3))
	require.Equal(t, "ab…", Cut("abc", 2))
	require.Equal(t, "dé…", Cut("déjà", 2), "runes, not bytes")
	require.Equal(t, "…", Cut("x", 0))
	require.Len(t, []rune(Cut(strings.Repeat("é", 1<<20), 5000)), 5001)
}

func TestBBox(t *testing.T) {
	w, s, e, n, ok := BBox("-77.1,38.8,-76.9,39.0")
	require.True(t, ok)
	require.Equal(t, [4]float64{-77.1, 38.8, -76.9, 39}, [4]float64{w, s, e, n})
	_, _, _, _, ok = BBox("-77.1 38.8 -76.9 39.0")
	require.True(t, ok, "spaces between the numbers")
	for _, bad := range []string{"National", "1,2,3", "1,2,3,4,5", "a,b,c,d", "-200,0,0,0", "0,-91,0,0", "0,0,181,0", "0,0,0,90.5"} {
		_, _, _, _, ok = BBox(bad)
		require.False(t, ok, bad)
	}
}

// TestSchemaOrgDataset: the mapping of the docs' table, with empty fields left out, a
// distribution without a web URL left out, and the dataset IRI an absolute identifier.
func TestSchemaOrgDataset(t *testing.T) {
	c := Catalog{BaseURL: "https://catalog.example.gov"}.WithDefaults()
	r := httptest.NewRequest(http.MethodGet, "/dataset/s", nil)
	ds := &store.LiveDataset{Dataset: store.Dataset{Slug: "s", Identifier: "https://data.example.gov/ds/1",
		DCAT: []byte(`{"title":"T","description":"","keyword":[],"publisher":{"name":"P","subOrganizationOf":{"name":"Q"}},
		"distribution":[{"accessURL":"https://a.example.gov/","format":"API"},{"downloadURL":"ftp://x/y"},"junk"],
		"spatial":{"type":"Polygon"},"landingPage":"https://lp.example.gov/","language":["en-US"]}`)}}
	got := SchemaOrgDataset(c, r, ds)
	require.Equal(t, "https://data.example.gov/ds/1", got["@id"])
	require.Equal(t, "https://catalog.example.gov/dataset/s", got["url"])
	require.Equal(t, "T", got["name"])
	require.NotContains(t, got, "description")
	require.NotContains(t, got, "keywords")
	require.NotContains(t, got, "spatialCoverage", "GeoJSON is left out")
	require.Equal(t, map[string]any{"@type": "Organization", "name": "P",
		"parentOrganization": map[string]any{"@type": "Organization", "name": "Q"}}, got["publisher"])
	require.Equal(t, []any{map[string]any{"@type": "DataDownload", "contentUrl": "https://a.example.gov/", "encodingFormat": "API"}},
		got["distribution"])
	require.Equal(t, "https://lp.example.gov/", got["sameAs"])
	require.Equal(t, []string{"en-US"}, got["inLanguage"])
	require.Equal(t, map[string]any{"@type": "DataCatalog", "name": DefaultTitle, "url": "https://catalog.example.gov/"},
		got["includedInDataCatalog"])

	ds.DCAT = []byte(`"not an object"`)
	got = SchemaOrgDataset(c, r, ds)
	require.Equal(t, "https://data.example.gov/ds/1", got["name"], "no title: the identifier names it")
}
