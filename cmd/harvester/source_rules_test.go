package main

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/web"
)

// badSource is one bad source as each of the three ways in writes it.
type badSource struct {
	name  string
	field string         // the API's field name of the problem
	json  map[string]any // the API's body (name and frequency added)
	cli   []string       // harvester harvest's arguments
	form  url.Values     // the web form's fields (name, frequency and csrf_token added)
}

var badSources = []badSource{
	{"bad url", "url", map[string]any{"url": "agency.example.gov/data.json", "schema_type": federal},
		[]string{"--url", "agency.example.gov/data.json", "--schema-type", federal},
		url.Values{"url": {"agency.example.gov/data.json"}, "source_type": {"document"}, "schema_type": {federal}}},
	{"unknown source type", "source_type", map[string]any{"url": "https://a.example.gov/x", "source_type": "geonode",
		"schema_type": federal}, []string{"--url", "https://a.example.gov/x", "--source-type", "geonode", "--schema-type", federal},
		url.Values{"url": {"https://a.example.gov/x"}, "source_type": {"geonode"}, "schema_type": {federal}}},
	{"schema type of another source type", "schema_type", map[string]any{"url": "https://a.example.gov/waf/",
		"source_type": "waf", "schema_type": federal},
		[]string{"--url", "https://a.example.gov/waf/", "--source-type", "waf", "--schema-type", federal},
		url.Values{"url": {"https://a.example.gov/waf/"}, "source_type": {"waf"}, "schema_type": {federal}}},
	{"shacl_profile dcat-ap-3", "options.shacl_profile", map[string]any{"url": "https://a.example.no/c.ttl",
		"source_type": "rdf", "schema_type": "dcat-ap", "options": map[string]string{"shacl_profile": "dcat-ap-3"}},
		[]string{"--url", "https://a.example.no/c.ttl", "--source-type", "rdf", "--schema-type", "dcat-ap", "--option",
			"shacl_profile=dcat-ap-3"},
		url.Values{"url": {"https://a.example.no/c.ttl"}, "source_type": {"rdf"}, "schema_type": {"dcat-ap"},
			"rdf.shacl_profile": {"dcat-ap-3"}}},
	{"portal setting on a data.json source", "options.fq", map[string]any{"url": "https://a.example.gov/data.json",
		"schema_type": federal, "options": map[string]string{"fq": "organization:epa-gov"}},
		[]string{"--url", "https://a.example.gov/data.json", "--schema-type", federal, "--option", "fq=organization:epa-gov"},
		url.Values{"url": {"https://a.example.gov/data.json"}, "source_type": {"document"}, "schema_type": {federal},
			"ckan.fq": {"organization:epa-gov"}}},
	{"precedence out of range", "precedence", map[string]any{"url": "https://a.example.gov/data.json",
		"schema_type": federal, "precedence": 5000},
		[]string{"--url", "https://a.example.gov/data.json", "--schema-type", federal, "--precedence", "5000"},
		url.Values{"url": {"https://a.example.gov/data.json"}, "source_type": {"document"}, "schema_type": {federal},
			"precedence": {"5000"}}},
}

// TestSameSourceMessageEverywhere: the API (POST and PUT), the web form (add and edit) and
// `harvester harvest` refuse each bad source with the same message, the source rule table's,
// and store nothing.
func TestSameSourceMessageEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := (&serviceFlags{dataDir: t.TempDir()}).openStore(ctx)
	require.NoError(t, err)
	t.Cleanup(st.Close)
	h, err := api.New(api.Config{APIKey: "k"}, api.Deps{Store: st, Fetch: fetch.Config{AllowPrivate: true}})
	require.NoError(t, err)
	site, err := web.New(web.Config{APIKey: "k", AllowPrivateSources: true}, web.Deps{Store: st, API: h})
	require.NoError(t, err)
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	b := signedIn(t, srv.URL)
	good := b.sendJSON(t, http.MethodPost, "/api/v1/harvest_sources", map[string]any{"name": "good",
		"url": "https://good.example.gov/data.json", "schema_type": federal})
	require.Equal(t, http.StatusCreated, good.status, good.body)

	for _, c := range badSources {
		t.Run(c.name, func(t *testing.T) {
			c.json["name"] = "bad"
			var want string
			for _, path := range []string{"/api/v1/harvest_sources", "/api/v1/harvest_sources/" + good.ID} {
				method := map[bool]string{true: http.MethodPost, false: http.MethodPut}[path == "/api/v1/harvest_sources"]
				r := b.sendJSON(t, method, path, c.json)
				require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s %s", method, r.body)
				require.Contains(t, r.Fields, c.field, "%s %s", method, r.body)
				want = r.Fields[c.field]
			}
			require.NotEmpty(t, want)

			code, _, stderr := runCmd(append([]string{"harvest"}, c.cli...)...)
			require.Equal(t, exitUsage, code, stderr)
			require.Contains(t, stderr, ": "+want, "the CLI says what the API says")

			for _, path := range []string{"/harvest_sources", "/harvest_sources/" + good.ID + "/edit"} {
				form := url.Values{"name": {"bad"}, "frequency": {"manual"}, "notification_frequency": {"on_error"},
					"csrf_token": {b.csrf(t, "/harvest_sources/new")}}
				for k, v := range c.form {
					form[k] = v
				}
				status, page := b.post(t, path, form)
				require.Equal(t, http.StatusUnprocessableEntity, status, "%s: %s", path, page)
				require.Contains(t, page, html.EscapeString(want), "%s: the form says what the API says", path)
			}
		})
	}
	_, total, err := st.SourceList(ctx, &store.SourceListParams{})
	require.NoError(t, err)
	require.Equal(t, 1, total, "only the good source was stored")
}

type jsonAnswer struct {
	status int
	body   string
	ID     string            `json:"id"`
	Fields map[string]string `json:"fields"`
}

// sendJSON sends body to the API with its key and reads the JSON answer.
func (b *formClient) sendJSON(t *testing.T, method, path string, body any) jsonAnswer {
	t.Helper()
	data, err := json.Marshal(body)
	require.NoError(t, err)
	status, raw := b.do(t, method, path, "application/json", string(data))
	a := jsonAnswer{status: status, body: raw}
	require.NoError(t, json.Unmarshal([]byte(raw), &a), raw)
	return a
}

// formClient is a signed-in operator's browser (cookies, no redirects followed) that also
// holds the API key.
type formClient struct {
	c    *http.Client
	base string
}

func signedIn(t *testing.T, base string) *formClient {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	b := &formClient{base: base, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	status, _ := b.post(t, "/sign-in", url.Values{"api_key": {"k"}, "csrf_token": {b.csrf(t, "/sign-in")}})
	require.Equal(t, http.StatusSeeOther, status)
	return b
}

// do sends a request (a body of contentType when that is not "") and returns the answer's
// status and body.
func (b *formClient) do(t *testing.T, method, path, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, b.base+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("X-API-Key", "k")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := b.c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

func (b *formClient) post(t *testing.T, path string, form url.Values) (int, string) {
	t.Helper()
	return b.do(t, http.MethodPost, path, "application/x-www-form-urlencoded", form.Encode())
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// csrf reads the CSRF token of the form on the page at path.
func (b *formClient) csrf(t *testing.T, path string) string {
	t.Helper()
	_, body := b.do(t, http.MethodGet, path, "", "")
	m := csrfField.FindStringSubmatch(body)
	require.NotNil(t, m, "no csrf_token on %s: %s", path, body)
	return m[1]
}
