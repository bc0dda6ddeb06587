package web

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
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
