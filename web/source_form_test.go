package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
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
	types := []string{""} // step 1: choose one
	for _, spec := range harvest.SourceSpecs {
		types = append(types, string(spec.Type))
	}
	require.Equal(t, types, selectValues(page, "source_type"))
	_, page = b.get("/harvest_sources/new?source_type=rdf")
	require.Equal(t, []string{"dcat-ap"}, selectValues(page, "schema_type"))
	require.Equal(t, []string{"", "dcat-ap-3.0.0", "dcat-ap-2.1.1", "dcat-ap-no-2.0", "none"},
		selectValues(page, "rdf.shacl_profile"))
	require.NotRegexp(t, `dcat-ap-3[^.]`, page, "no invalid profile is suggested")
	_, page = b.get("/harvest_sources/new?source_type=arcgis")
	require.Equal(t, []string{"", "hub", "search"}, selectValues(page, "arcgis.api"))

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

// TestSourceFormPrecedence: the form shows the source's precedence, saves a new one, refuses one
// out of range or not a whole number at its field (keeping what was typed), and an edit that
// leaves the field as it is keeps the stored precedence.
func TestSourceFormPrecedence(t *testing.T) {
	st := sqliteStore(t)
	b := newSite(t, st).browser(t)
	b.signIn()
	code, page := b.get("/harvest_sources/new?source_type=document")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, page, `<input type="number" id="precedence" name="precedence" value="0" min="-1000" max="1000"`)

	form := url.Values{"name": {"Aggregator"}, "url": {"https://aggregator.example.org/data.json"},
		"source_type": {"document"}, "schema_type": {"dcatus1.1: non-federal"}, "frequency": {"manual"},
		"notification_frequency": {"on_error"}, "precedence": {"-10"}, "csrf_token": {b.csrf("/harvest_sources/new")}}
	res, body := b.post("/harvest_sources", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, body)
	srcPath := res.Header.Get("Location")
	id := srcPath[len("/harvest_sources/"):]
	src, err := st.SourceGet(t.Context(), id)
	require.NoError(t, err)
	require.Equal(t, -10, src.Precedence)
	code, page = b.get(srcPath + "/edit")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, page, `name="precedence" value="-10"`)

	for value, want := range map[string]string{
		"5000": "5000 is out of range: want a whole number from -1000 to 1000 (higher wins a cross-source duplicate)",
		"high": "&#34;high&#34; is not a whole number: want one from -1000 to 1000 (higher wins a cross-source duplicate)",
		"+5":   "&#34;&#43;5&#34; is not a whole number: want one from -1000 to 1000 (higher wins a cross-source duplicate)",
	} {
		form.Set("precedence", value)
		form.Set("csrf_token", b.csrf(srcPath+"/edit"))
		res, body = b.post(srcPath+"/edit", form)
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, body)
		require.Contains(t, body, `<p class="field-error" id="precedence-error">`+want+`</p>`, value)
		require.Contains(t, body, `name="precedence" value="`+strings.ReplaceAll(value, "+", "&#43;")+`"`, "what was typed is shown again")
		require.Contains(t, body, `aria-describedby="precedence-hint precedence-error" aria-invalid="true"`)
	}
	src, err = st.SourceGet(t.Context(), id)
	require.NoError(t, err)
	require.Equal(t, -10, src.Precedence, "nothing saved")

	form.Set("precedence", "-10")
	form.Set("name", "Aggregator, renamed")
	form.Set("csrf_token", b.csrf(srcPath+"/edit"))
	res, body = b.post(srcPath+"/edit", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, body)
	src, err = st.SourceGet(t.Context(), id)
	require.NoError(t, err)
	require.Equal(t, -10, src.Precedence, "an edit keeps the precedence it shows")
	code, page = b.get(srcPath)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, page, `<dd id="source-precedence">-10 `)
}

// Issue 36 §4: the source form works in two steps without a script: first the source type
// alone, then that type's form, with only its schema types and settings; an unknown type is
// the first step again with a message (400). The edit form shows the source's type, and
// choosing another shows that type's form.
func TestSourceFormInTwoSteps(t *testing.T) {
	st := sqliteStore(t)
	b := newSite(t, st).browser(t)
	b.signIn()
	code, page := b.get("/harvest_sources/new?organization_id=org-1")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, page, `<form method="get" action="/harvest_sources/new" id="source-type-form">`)
	require.Contains(t, page, `<input type="hidden" name="organization_id" value="org-1">`)
	require.NotContains(t, page, `id="source-form"`, "step 1: the type only")
	require.Nil(t, selectValues(page, "schema_type"))

	_, page = b.get("/harvest_sources/new?source_type=waf&organization_id=org-1")
	require.Contains(t, page, `<input type="hidden" name="source_type" id="source-form-type" value="waf">`)
	require.Contains(t, page, `<option value="waf" selected>`)
	require.Equal(t, []string{"iso19115_1", "iso19115_2", "fgdc"}, selectValues(page, "schema_type"), "waf's only, no default")
	require.Contains(t, page, `id="waf_time_zone"`)
	require.NotContains(t, page, `id="collection_parent_url"`, "waf-collection only")
	require.Contains(t, page, `name="waf.link_checks"`, "waf's one setting, every type's")
	require.NotRegexp(t, `name="(rdf|csw|arcgis|ckan)\.`, page, "no other type's settings")

	_, page = b.get("/harvest_sources/new?source_type=waf-collection")
	require.Contains(t, page, `id="collection_parent_url"`)
	_, page = b.get("/harvest_sources/new?source_type=csw")
	require.Equal(t, []string{"", "iso19115_1", "iso19115_2", "fgdc"}, selectValues(page, "schema_type"), "csw has a default")
	require.Contains(t, page, `<option value="" selected>Default: iso19115_1</option>`)
	require.Contains(t, page, `name="csw.binding"`)
	require.NotRegexp(t, `name="(rdf|arcgis|ckan)\.`, page)
	require.NotContains(t, page, `id="waf_time_zone"`)

	code, page = b.get("/harvest_sources/new?source_type=ftp")
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, page, `<p class="field-error" id="source_type-error">&#34;ftp&#34; is not a source type: choose one of the list</p>`)
	require.NotContains(t, page, `id="source-form"`)

	src, err := st.SourceInsert(t.Context(), &store.SourceInsertParams{Name: "N", URL: "https://data.example.no/c.ttl",
		SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP, Frequency: harvest.FrequencyManual,
		NotificationFrequency: harvest.NotifyOnError, Options: map[string]string{"shacl_profile": "none"}})
	require.NoError(t, err)
	edit := "/harvest_sources/" + src.ID + "/edit"
	_, page = b.get(edit)
	require.Contains(t, page, `<form method="get" action="`+edit+`" id="source-type-form">`)
	require.Contains(t, page, `<option value="rdf" selected>`)
	require.Equal(t, []string{"dcat-ap"}, selectValues(page, "schema_type"))
	require.Contains(t, page, `<option value="none" selected>none</option>`, "the stored setting")
	_, page = b.get(edit + "?source_type=document")
	require.Contains(t, page, `value="document">`)
	require.NotContains(t, page, `name="rdf.shacl_profile"`, "the rdf settings are gone")
	require.Contains(t, selectValues(page, "schema_type"), "dcatus3.0")
	require.Contains(t, page, `value="https://data.example.no/c.ttl"`, "the source's other fields")
	code, _ = b.get(edit + "?source_type=ftp")
	require.Equal(t, http.StatusBadRequest, code)
}
