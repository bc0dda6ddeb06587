package web

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/store"
)

// TestSignInNextStaysOnSite: a hostile next (one a browser would read as another host, or
// not a path at all) sends the operator to the sources list after sign-in; a path of this
// site is kept.
func TestSignInNextStaysOnSite(t *testing.T) {
	s := newSite(t, sqliteStore(t))
	for next, want := range map[string]string{
		"/\t/evil.example":          "/harvest_sources",
		"/\n/evil.example":          "/harvest_sources",
		"/\r/evil.example":          "/harvest_sources",
		"/ /evil.example":           "/harvest_sources",
		"/\u00a0/evil.example":      "/harvest_sources",
		"/\x00/evil.example":        "/harvest_sources",
		"/\\evil.example":           "/harvest_sources",
		"/\\/evil.example":          "/harvest_sources",
		"//evil.example":            "/harvest_sources",
		"///evil.example":           "/harvest_sources",
		"https://evil.example/":     "/harvest_sources",
		"javascript:alert(1)":       "/harvest_sources",
		"evil.example":              "/harvest_sources",
		"":                          "/harvest_sources",
		"/%09/evil.example":         "/%09/evil.example", // stays a path: the browser does not decode it
		"/organizations":            "/organizations",
		"/harvest_sources?page=2#x": "/harvest_sources?page=2#x",
	} {
		b := s.browser(t)
		res, body := b.post("/sign-in", url.Values{"api_key": {testKey}, "csrf_token": {b.csrf("/sign-in")}, "next": {next}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode, "next %q: %s", next, body)
		require.Equal(t, want, res.Header.Get("Location"), "next %q", next)
	}
}

// TestSignInLimit: after AuthLimitConfig.Burst wrong keys at sign-in a client is refused
// with 429 and Retry-After, even with the right key, at the sign-in and at the API (they
// share the limiter); another client still signs in.
func TestSignInLimit(t *testing.T) {
	st := sqliteStore(t)
	log := slog.New(slog.DiscardHandler)
	limiter := api.NewAuthLimiter(api.AuthLimitConfig{Burst: 3, Every: time.Hour})
	h, err := api.New(api.Config{APIKey: testKey}, api.Deps{Store: st, Logger: log, AuthLimiter: limiter})
	require.NoError(t, err)
	w, err := New(Config{APIKey: testKey}, Deps{Store: st, API: h, Logger: log, AuthLimiter: limiter})
	require.NoError(t, err)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	b := (&site{store: st, url: srv.URL}).browser(t)
	signIn := func(key string) (*http.Response, string) {
		return b.post("/sign-in", url.Values{"api_key": {key}, "csrf_token": {b.csrf("/sign-in")}})
	}
	for i := range 3 {
		res, _ := signIn("wrong")
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, "wrong key %d", i+1)
	}
	for _, key := range []string{"wrong", testKey} {
		res, body := signIn(key)
		require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "key %q", key)
		require.Equal(t, "3600", res.Header.Get("Retry-After"))
		require.Contains(t, body, "too many wrong API keys from your address: try again in 3600 s")
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/organizations", strings.NewReader(`{}`))
	require.NoError(t, err)
	req.Header.Set("X-API-Key", testKey)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "the API shares the sign-in's limit")

	// another client (another remote address) signs in with the right key
	get := httptest.NewRequest(http.MethodGet, "/sign-in", nil)
	get.RemoteAddr = "198.51.100.2:40000"
	rec := httptest.NewRecorder()
	w.ServeHTTP(rec, get)
	m := csrfRe.FindStringSubmatch(rec.Body.String())
	require.NotNil(t, m)
	post := httptest.NewRequest(http.MethodPost, "/sign-in", strings.NewReader(url.Values{"api_key": {testKey},
		"csrf_token": {m[1]}}.Encode()))
	post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	post.RemoteAddr = get.RemoteAddr
	for _, c := range rec.Result().Cookies() {
		post.AddCookie(c)
	}
	rec = httptest.NewRecorder()
	w.ServeHTTP(rec, post)
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
}

// TestSignOutEndsSession: after sign-out the old session cookie (kept by the browser, or
// copied) no longer writes, at this server and at another one on the same store (another
// process of a cluster); a session still signed in elsewhere is not ended with it.
func TestSignOutEndsSession(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		s, other := newSite(t, st), newSite(t, st)
		b, kept := s.browser(t), s.browser(t)
		b.signIn()
		kept.signIn()
		u := mustURL(t, s.url)
		old := b.c.Jar.Cookies(u)
		token := b.csrf("/organizations/new")
		res, _ := b.post("/sign-out", url.Values{"csrf_token": {token}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode)

		for _, at := range []*site{s, other} {
			replay := at.browser(t)
			replay.c.Jar.SetCookies(mustURL(t, at.url), old)
			res, body := replay.post("/organizations", url.Values{"name": {"After sign-out"}, "slug": {"after-" + uuid.NewString()[:8]},
				"csrf_token": {token}})
			require.Equal(t, http.StatusSeeOther, res.StatusCode, body)
			require.True(t, strings.HasPrefix(res.Header.Get("Location"), "/sign-in?next="), "old cookie still writes at %s", at.url)
		}
		list, _, err := st.OrganizationList(t.Context(), &store.PageParams{})
		require.NoError(t, err)
		for _, o := range list {
			require.NotEqual(t, "After sign-out", o.Name)
		}
		res, body := kept.post("/organizations", url.Values{"name": {"Still signed in"}, "slug": {"kept-" + uuid.NewString()[:8]},
			"csrf_token": {kept.csrf("/organizations/new")}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode, body)
		require.True(t, strings.HasPrefix(res.Header.Get("Location"), "/organizations/"), "the other session still writes")
	})
}
