package web

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/store"
)

// TestPublicFeedRoutes: /data.json, /data.v3.json and /organization/{slug}/data.json answer the
// live catalog (the held duplicate left out; per organization only its sources' datasets; an
// unknown slug 404) with the public headers, /sitemap.xml lists the dataset pages, and
// robots.txt disallows the operators' pages and /api/v1; with PrivateCatalog the feeds need a
// signed-in operator while robots.txt, still open, disallows everything. Both stores.
func TestPublicFeedRoutes(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st)
		kept, held := seedHeldPair(t, st)
		for _, private := range []bool{false, true} {
			log := slog.New(slog.DiscardHandler)
			catalog := feeds.Catalog{BaseURL: "https://catalog.example.gov"}
			a, err := api.New(api.Config{APIKey: testKey, ProtectReads: true, PrivateCatalog: private, Catalog: catalog}, api.Deps{Store: st, Logger: log})
			require.NoError(t, err)
			h, err := New(Config{APIKey: testKey, ProtectReads: true, PrivateCatalog: private, Catalog: catalog}, Deps{Store: st, API: a, Logger: log})
			require.NoError(t, err)
			do := func(path string) *httptest.ResponseRecorder {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
				return w
			}
			robots := do("/robots.txt")
			require.Equal(t, http.StatusOK, robots.Code)
			if private {
				for _, p := range []string{"/data.json", "/data.v3.json", "/organization/" + f.org.Slug + "/data.json", "/sitemap.xml"} {
					require.Equal(t, http.StatusSeeOther, do(p).Code, p)
				}
				require.Contains(t, robots.Body.String(), "Disallow: /\n")
				continue
			}
			for _, line := range []string{"Disallow: /api/v1/\n", "Disallow: /harvest_sources\n", "Disallow: /organizations\n",
				"Allow: /\n", "Sitemap: https://catalog.example.gov/sitemap.xml\n"} {
				require.Contains(t, robots.Body.String(), line)
			}
			require.NotContains(t, robots.Body.String(), "Disallow: /\n")

			identifiers := func(path string) []string {
				w := do(path)
				require.Equal(t, http.StatusOK, w.Code, path)
				require.Equal(t, "*", w.Header().Get("Access-Control-Allow-Origin"))
				require.NotEmpty(t, w.Header().Get("ETag"))
				var c struct{ Dataset []struct{ Identifier string } }
				require.NoError(t, json.Unmarshal(w.Body.Bytes(), &c), path)
				var out []string
				for _, d := range c.Dataset {
					out = append(out, d.Identifier)
				}
				return out
			}
			require.ElementsMatch(t, []string{"a", kept.Identifier}, identifiers("/data.json"), "the held duplicate is left out")
			require.Equal(t, []string{"a"}, identifiers("/organization/"+f.org.Slug+"/data.json"))
			require.Empty(t, identifiers("/data.v3.json"), "no DCAT-US 3.0 source")
			require.Equal(t, http.StatusNotFound, do("/organization/no-such-org/data.json").Code)

			sm := do("/sitemap.xml")
			require.Equal(t, http.StatusOK, sm.Code)
			require.Contains(t, sm.Body.String(), "<loc>https://catalog.example.gov/dataset/"+kept.Slug+"</loc>")
			require.False(t, strings.Contains(sm.Body.String(), held.Slug), "no held dataset in the sitemap")
		}
	})
}
