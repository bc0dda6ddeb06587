package api

import (
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// TestPortalSourceURLIsItsBase: a CKAN portal written as its base, its base with a trailing "/"
// or its package_search endpoint is one source: the first is stored as the portal's base, the
// others answer 409 naming it; so does a portal source stored as its endpoint before portal URLs
// were normalised.
func TestPortalSourceURLIsItsBase(t *testing.T) {
	t.Parallel()
	b := setup(t)
	portal := func(url string) map[string]any {
		return map[string]any{"name": "CKAN " + url, "url": url, "source_type": "ckan"}
	}
	created := b.write(t, http.MethodPost, "/api/v1/harvest_sources", portal("https://ckan.example.gov/api/3/action/package_search?rows=5"))
	require.Equal(t, http.StatusCreated, created.status, "body: %s", created.body)
	src := created.object(t)
	require.Equal(t, "https://ckan.example.gov/", src["url"], "stored as the portal's base")
	for _, u := range []string{"https://ckan.example.gov", "https://ckan.example.gov/", "https://ckan.example.gov/api/3/action/package_search",
		"https://ckan.example.gov/api/3/action/package_list", "https://CKAN.example.gov/api/3"} {
		requireError(t, b.write(t, http.MethodPost, "/api/v1/harvest_sources", portal(u)), http.StatusConflict,
			`a harvest source with url "https://ckan.example.gov/"`)
	}
	other := b.write(t, http.MethodPost, "/api/v1/harvest_sources", portal("https://ckan.example.gov/other-portal/"))
	require.Equal(t, http.StatusCreated, other.status, "a portal under another path is another portal: %s", other.body)
	require.Equal(t, "https://ckan.example.gov/other-portal", other.object(t)["url"])

	legacy := b.insertLegacy(t, "https://legacy.example.gov/api/3/action/package_search", harvest.SourceCKAN,
		harvest.SchemaDCATUS11NonFederal)
	requireError(t, b.write(t, http.MethodPost, "/api/v1/harvest_sources", portal("https://legacy.example.gov/")),
		http.StatusConflict, `a harvest source with url "https://legacy.example.gov/api/3/action/package_search" `+
			`(the same catalog as "https://legacy.example.gov/") already exists: harvest source `+legacy.ID)
}

// TestCSWSourceURLIsItsEndpoint: a csw source's URL pasted as a GetCapabilities request is
// stored as the CSW endpoint (harvest.CSWBaseURL), and the endpoint written either way is one
// source: a 409 naming it on POST and on PUT of another source; a source stored with the
// parameters before is found too. Another parameter is another source.
func TestCSWSourceURLIsItsEndpoint(t *testing.T) {
	t.Parallel()
	b := setup(t)
	csw := func(url string) map[string]any {
		return map[string]any{"name": "CSW " + url, "url": url, "source_type": "csw"}
	}
	created := b.write(t, http.MethodPost, "/api/v1/harvest_sources",
		csw("https://gis.example.gov/csw?SERVICE=CSW&REQUEST=GetCapabilities&VERSION=2.0.2"))
	require.Equal(t, http.StatusCreated, created.status, "body: %s", created.body)
	require.Equal(t, "https://gis.example.gov/csw", created.object(t)["url"], "stored as the endpoint")
	for _, u := range []string{"https://gis.example.gov/csw", "https://gis.example.gov/csw?service=CSW&request=GetCapabilities",
		"https://gis.example.gov/csw?Request=GetRecords&typeNames=csw:Record&ElementSetName=full&AcceptVersions=3.0.0"} {
		requireError(t, b.write(t, http.MethodPost, "/api/v1/harvest_sources", csw(u)), http.StatusConflict,
			`a harvest source with url "https://gis.example.gov/csw"`)
	}
	other := b.write(t, http.MethodPost, "/api/v1/harvest_sources", csw("https://gis.example.gov/csw?portal=b&service=CSW"))
	require.Equal(t, http.StatusCreated, other.status, "another parameter is another source: %s", other.body)
	require.Equal(t, "https://gis.example.gov/csw?portal=b", other.object(t)["url"])
	requireError(t, b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+other.object(t)["id"].(string),
		csw("https://gis.example.gov/csw?VERSION=2.0.2")), http.StatusConflict, `a harvest source with url "https://gis.example.gov/csw"`)

	legacy := b.insertLegacy(t, "https://legacy.example.gov/csw?SERVICE=CSW&REQUEST=GetCapabilities", harvest.SourceCSW,
		harvest.SchemaISO19115_1)
	requireError(t, b.write(t, http.MethodPost, "/api/v1/harvest_sources", csw("https://legacy.example.gov/csw")),
		http.StatusConflict, `already exists: harvest source `+legacy.ID)
}

// TestDocumentNamesTheRuleTable: the document's source_type and schema_type values are the
// source rule table's (harvest.SourceSpecs), in the answer and in the input.
func TestDocumentNamesTheRuleTable(t *testing.T) {
	var types, schemas []any
	for _, spec := range harvest.SourceSpecs {
		types = append(types, string(spec.Type))
		for _, st := range spec.Schemas {
			if !slices.Contains(schemas, any(string(st))) {
				schemas = append(schemas, string(st))
			}
		}
	}
	for _, name := range []string{"HarvestSource", "HarvestSourceInput"} {
		props := schemaAt(t, "schemas", name, "properties")
		require.Equal(t, types, props["source_type"].(map[string]any)["enum"], name)
		require.ElementsMatch(t, schemas, props["schema_type"].(map[string]any)["enum"], name)
	}
}
