package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
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
		"iso19115_2", "fgdc", "dcat-ap"}, selectValues(page, "schema_type"))
	require.Equal(t, []string{"", "dcat-ap-3.0.0", "dcat-ap-2.1.1", "dcat-ap-no-2.0", "none"},
		selectValues(page, "rdf.shacl_profile"))
	require.Equal(t, []string{"", "hub", "search"}, selectValues(page, "arcgis.api"))
	require.NotRegexp(t, `dcat-ap-3[^.]`, page, "no invalid profile is suggested")

	form := url.Values{"name": {"N"}, "url": {"https://data.example.no/catalog.ttl"}, "source_type": {"rdf"},
		"schema_type": {"dcat-ap"}, "frequency": {"manual"}, "notification_frequency": {"on_error"},
		"rdf.shacl_profile": {"dcat-ap-3"}, "csrf_token": {b.csrf("/harvest_sources/new")}}
	res, body := b.post("/harvest_sources", form)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, body)
	require.Contains(t, body, `id="rdf-shacl_profile-error">&#34;dcat-ap-3&#34; is not a shacl_profile value of an rdf source`)
	_, n, err := st.SourceList(t.Context(), &store.SourceListParams{})
	require.NoError(t, err)
	require.Zero(t, n, "nothing saved")
}

// TestSourceJobStart: "harvest now" on a source page queues the job without the API, kicks the
// scheduler and goes to the job's page; a second one while it is unfinished is a 409 that says so.
func TestSourceJobStart(t *testing.T) {
	st := sqliteStore(t)
	h, err := api.New(api.Config{APIKey: testKey}, api.Deps{Store: st})
	require.NoError(t, err)
	kicks := 0
	w, err := New(Config{APIKey: testKey}, Deps{Store: st, API: h, Queued: func() { kicks++ }})
	require.NoError(t, err)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	b := (&site{store: st, url: srv.URL}).browser(t)
	b.signIn()
	src, err := st.SourceInsert(t.Context(), &store.SourceInsertParams{Name: "S", URL: "https://a.example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal, Frequency: harvest.FrequencyManual,
		NotificationFrequency: harvest.NotifyOnError})
	require.NoError(t, err)
	form := url.Values{"job_type": {"validate"}, "csrf_token": {b.csrf("/harvest_sources/" + src.ID + "/jobs/new?job_type=validate")}}
	res, body := b.post("/harvest_sources/"+src.ID+"/jobs", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, body)
	jobs, _, err := st.JobList(t.Context(), &store.JobListParams{SourceID: src.ID})
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.Equal(t, "/harvest_jobs/"+jobs[0].ID, res.Header.Get("Location"))
	require.Equal(t, harvest.JobValidate, jobs[0].JobType)
	require.Equal(t, 1, kicks, "the scheduler is kicked")

	res, body = b.post("/harvest_sources/"+src.ID+"/jobs", form)
	require.Equal(t, http.StatusConflict, res.StatusCode, body)
	require.Contains(t, body, "already has an unfinished job")
}

// TestSourceFormShowsAStaleSetting: a source saved with shacl_profile dcat-ap-3 (before the
// rule table checked settings) shows it on its edit form as not valid, and saving it as it is
// is refused, rather than the value being dropped unseen.
func TestSourceFormShowsAStaleSetting(t *testing.T) {
	st := sqliteStore(t)
	b := newSite(t, st).browser(t)
	b.signIn()
	src, err := st.SourceInsert(t.Context(), &store.SourceInsertParams{Name: "N", URL: "https://data.example.no/c.ttl",
		SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP, Frequency: harvest.FrequencyManual,
		NotificationFrequency: harvest.NotifyOnError, Options: map[string]string{"shacl_profile": "dcat-ap-3"}})
	require.NoError(t, err)
	_, page := b.get("/harvest_sources/" + src.ID + "/edit")
	require.Equal(t, []string{"", "dcat-ap-3", "dcat-ap-3.0.0", "dcat-ap-2.1.1", "dcat-ap-no-2.0", "none"},
		selectValues(page, "rdf.shacl_profile"))
	require.Contains(t, page, `<option value="dcat-ap-3" selected>dcat-ap-3 (not a valid value: choose another)</option>`)
	form := url.Values{"name": {"N"}, "url": {src.URL}, "source_type": {"rdf"}, "schema_type": {"dcat-ap"},
		"frequency": {"manual"}, "notification_frequency": {"on_error"}, "rdf.shacl_profile": {"dcat-ap-3"},
		"csrf_token": {b.csrf("/harvest_sources/" + src.ID + "/edit")}}
	res, body := b.post("/harvest_sources/"+src.ID+"/edit", form)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, body)
	require.Contains(t, body, `id="rdf-shacl_profile-error"`)
}
