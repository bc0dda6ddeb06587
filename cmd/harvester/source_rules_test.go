package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
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
}

// TestSameSourceMessageEverywhere: the API (POST and PUT), the web form (add and edit) and
// `harvester harvest` refuse each bad source with the same message, the source rule table's,
// and store nothing.
func TestSameSourceMessageEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(ctx))
	log := slog.New(slog.DiscardHandler)
	h, err := api.New(api.Config{APIKey: "k"}, api.Deps{Store: st, Logger: log, Fetch: fetch.Config{AllowPrivate: true}})
	require.NoError(t, err)
	site, err := web.New(web.Config{APIKey: "k", AllowPrivateSources: true}, web.Deps{Store: st, API: h, Logger: log})
	require.NoError(t, err)
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	good := sendJSON(t, srv.URL, http.MethodPost, "/api/v1/harvest_sources", map[string]any{"name": "good",
		"url": "https://good.example.gov/data.json", "schema_type": federal})
	require.Equal(t, http.StatusCreated, good.status, good.body)
	b := signedIn(t, srv.URL)

	for _, c := range badSources {
		t.Run(c.name, func(t *testing.T) {
			c.json["name"] = "bad"
			var want string
			for _, path := range []string{"/api/v1/harvest_sources", "/api/v1/harvest_sources/" + good.ID} {
				method := map[bool]string{true: http.MethodPost, false: http.MethodPut}[path == "/api/v1/harvest_sources"]
				r := sendJSON(t, srv.URL, method, path, c.json)
				require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s %s", method, r.body)
				require.Contains(t, r.Fields, c.field, "%s %s", method, r.body)
				want = r.Fields[c.field]
			}
			require.NotEmpty(t, want)

			var out, errOut bytes.Buffer
			code := run(ctx, append([]string{"harvest"}, c.cli...), &out, &errOut)
			require.Equal(t, exitUsage, code, errOut.String())
			require.Contains(t, errOut.String(), ": "+want, "the CLI says what the API says")

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

func sendJSON(t *testing.T, base, method, path string, body any) jsonAnswer {
	t.Helper()
	data, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(method, base+path, bytes.NewReader(data))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", "k")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	a := jsonAnswer{status: res.StatusCode, body: string(raw)}
	require.NoError(t, json.Unmarshal(raw, &a), string(raw))
	return a
}

// formClient is a signed-in operator's browser: cookies, no redirects followed.
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

func (b *formClient) post(t *testing.T, path string, form url.Values) (int, string) {
	t.Helper()
	res, err := b.c.PostForm(b.base+path, form)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func (b *formClient) csrf(t *testing.T, path string) string {
	t.Helper()
	res, err := b.c.Get(b.base + path)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	m := csrfField.FindStringSubmatch(string(body))
	require.NotNil(t, m, "no csrf_token on %s: %s", path, strings.TrimSpace(string(body)))
	return m[1]
}
