package web

import (
	"context"
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
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

const testKey = "test-api-key"

// site is the web UI and the API over one store, served by an httptest server.
type site struct {
	store store.Store
	url   string
}

func newSite(t *testing.T, st store.Store) *site {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	h, err := api.New(api.Config{APIKey: testKey}, api.Deps{Store: st, Logger: log})
	require.NoError(t, err)
	w, err := New(Config{APIKey: testKey}, Deps{Store: st, API: h, Logger: log})
	require.NoError(t, err)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	return &site{store: st, url: srv.URL}
}

func sqliteStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(context.Background()))
	return st
}

// browser is an HTTP client with cookies that does not follow redirects.
type browser struct {
	t    *testing.T
	c    *http.Client
	base string
}

func (s *site) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: s.url, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) get(path string) (int, string) {
	b.t.Helper()
	res, err := b.c.Get(b.base + path)
	require.NoError(b.t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

func (b *browser) post(path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	res, err := b.c.PostForm(b.base+path, form)
	require.NoError(b.t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

var csrfRe = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// csrf reads the CSRF token of the form on the page at path.
func (b *browser) csrf(path string) string {
	b.t.Helper()
	_, body := b.get(path)
	m := csrfRe.FindStringSubmatch(body)
	require.NotNil(b.t, m, "no csrf_token on %s", path)
	return m[1]
}

func (b *browser) signIn() {
	b.t.Helper()
	res, _ := b.post("/sign-in", url.Values{"api_key": {testKey}, "csrf_token": {b.csrf("/sign-in")}, "next": {"/organizations"}})
	require.Equal(b.t, http.StatusSeeOther, res.StatusCode)
}

func TestSmoke(t *testing.T) {
	s := newSite(t, sqliteStore(t))
	b := s.browser(t)
	code, body := b.get("/harvest_sources")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, "<h1 id=\"page-title\">Harvest sources</h1>")
	b.signIn()
	res, body := b.post("/organizations", url.Values{"name": {"Agency"}, "slug": {"agency"}, "csrf_token": {b.csrf("/organizations/new")}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, body)
	loc := res.Header.Get("Location")
	code, body = b.get(loc)
	require.Equal(t, http.StatusOK, code, body)
	require.True(t, strings.Contains(body, "Agency"))
}
