package feeds

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDatasetIRI(t *testing.T) {
	c := Catalog{BaseURL: "https://catalog.example.gov/"}.WithDefaults()
	r := httptest.NewRequest(http.MethodGet, "http://localhost/x", nil)
	require.Equal(t, "https://data.example.gov/ds/1", c.DatasetIRI(r, "https://data.example.gov/ds/1", "s"))
	for _, id := range []string{"doi:10.1/x", "urn:uuid:1", "abc", "https://", "https://x/a b", "ftp://x/y"} {
		require.Equal(t, "https://catalog.example.gov/dataset/my-slug", c.DatasetIRI(r, id, "my-slug"), id)
	}
	require.Equal(t, "https://catalog.example.gov/dataset/a%2Fb", c.DatasetURL(r, "a/b"))

	local := Catalog{}.WithDefaults()
	require.Equal(t, DefaultTitle, local.Title)
	require.Equal(t, "http://localhost/dataset/s", local.DatasetURL(r, "s"))
	r.Header.Set("X-Forwarded-Proto", "https")
	require.Equal(t, "https://localhost", local.Base(r))
}

func TestNotModified(t *testing.T) {
	mod := time.Date(2026, 12, 1, 10, 0, 0, 500, time.UTC)
	etag := ETag("data.json", "", "3")
	for _, c := range []struct {
		name    string
		headers map[string]string
		want    bool
	}{
		{"no validators", nil, false},
		{"matching etag", map[string]string{"If-None-Match": etag}, true},
		{"one of a list, weak", map[string]string{"If-None-Match": `"x", W/` + etag}, true},
		{"star", map[string]string{"If-None-Match": "*"}, true},
		{"other etag wins over a date", map[string]string{"If-None-Match": `"x"`, "If-Modified-Since": mod.Add(time.Hour).Format(http.TimeFormat)}, false},
		{"same second", map[string]string{"If-Modified-Since": mod.Format(http.TimeFormat)}, true},
		{"older", map[string]string{"If-Modified-Since": mod.Add(-time.Second).Format(http.TimeFormat)}, false},
		{"garbage date", map[string]string{"If-Modified-Since": "yesterday"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/data.json", nil)
			for k, v := range c.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			require.Equal(t, c.want, NotModified(w, r, etag, mod))
			require.Equal(t, etag, w.Header().Get("ETag"))
			require.Equal(t, mod.Format(http.TimeFormat), w.Header().Get("Last-Modified"))
			if c.want {
				require.Equal(t, http.StatusNotModified, w.Code)
			}
		})
	}
	w := httptest.NewRecorder()
	Public(w)
	require.Equal(t, "*", w.Header().Get("Access-Control-Allow-Origin"))
	require.Contains(t, w.Header().Get("Cache-Control"), "public")
}
