package web

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

var optionRe = regexp.MustCompile(`<option value="([^"]*)"`)

// selectValues returns the option values of the select named name on page, or nil.
func selectValues(page, name string) []string {
	m := regexp.MustCompile(`(?s)<select [^>]*name="` + regexp.QuoteMeta(name) + `"[^>]*>(.*?)</select>`).FindStringSubmatch(page)
	if m == nil {
		return nil
	}
	var out []string
	for _, o := range optionRe.FindAllStringSubmatch(m[1], -1) {
		out = append(out, o[1])
	}
	return out
}

// TestSourceFormOffersOnlyValidValues: the source form's source type, schema type and
// shacl_profile are select lists of the rule table's values (no dcat-ap-3 suggested), and a
// posted value outside them is refused with the table's message at its field.
func TestSourceFormOffersOnlyValidValues(t *testing.T) {
	st := sqliteStore(t)
	b := newSite(t, st).browser(t)
	b.signIn()
	code, page := b.get("/harvest_sources/new")
	require.Equal(t, http.StatusOK, code)
	var types []string
	for _, spec := range harvest.SourceSpecs {
		types = append(types, string(spec.Type))
	}
	require.Equal(t, types, selectValues(page, "source_type"))
	require.ElementsMatch(t, []string{"", "dcatus1.1: federal", "dcatus1.1: non-federal", "dcatus3.0", "iso19115_1",
		"iso19115_2", "dcat-ap"}, selectValues(page, "schema_type"))
	require.Equal(t, []string{"", "dcat-ap-3.0.0", "dcat-ap-2.1.1", "dcat-ap-no-2.0", "none"},
		selectValues(page, "rdf.shacl_profile"))
	require.Equal(t, []string{"", "hub", "search"}, selectValues(page, "arcgis.api"))
	require.NotRegexp(t, `dcat-ap-3[^.]`, page, "no invalid profile is suggested")

	form := url.Values{"name": {"N"}, "url": {"https://data.example.no/catalog.ttl"}, "source_type": {"rdf"},
		"schema_type": {"dcat-ap"}, "frequency": {"manual"}, "notification_frequency": {"on_error"},
		"rdf.shacl_profile": {"dcat-ap-3"}, "csrf_token": {b.csrf("/harvest_sources/new")}}
	res, body := b.post("/harvest_sources", form)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, body)
	require.Contains(t, body, `id="rdf-shacl_profile-error">&#34;dcat-ap-3&#34; is not a shacl_profile value of a rdf source`)
	_, n, err := st.SourceList(t.Context(), &store.SourceListParams{})
	require.NoError(t, err)
	require.Zero(t, n, "nothing saved")
}
