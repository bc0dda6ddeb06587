package web

import (
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

// TestDCATAPFeedRoutes: the web server mounts the DCAT-AP feed (feeds/dcatapfeed) publicly:
// /catalog negotiates, /catalog.ttl|.rdf|.jsonld|.nt name their syntax, /dataset/{slug}.ttl and
// its siblings answer a live dataset's document; a bad parameter is a plain-text 400, and with
// PrivateCatalog the feed needs a signed-in operator.
func TestDCATAPFeedRoutes(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		kept, held := seedHeldPair(t, st)
		for _, private := range []bool{false, true} {
			log := slog.New(slog.DiscardHandler)
			cat := feeds.Catalog{BaseURL: "https://catalog.example.gov", Title: "Web feed"}
			a, err := api.New(api.Config{APIKey: testKey, ProtectReads: true, PrivateCatalog: private, Catalog: cat}, api.Deps{Store: st, Logger: log})
			require.NoError(t, err)
			h, err := New(Config{APIKey: testKey, ProtectReads: true, PrivateCatalog: private, Catalog: cat}, Deps{Store: st, API: a, Logger: log})
			require.NoError(t, err)
			do := func(path, accept string) *httptest.ResponseRecorder {
				w := httptest.NewRecorder()
				r := httptest.NewRequest(http.MethodGet, path, nil)
				if accept != "" {
					r.Header.Set("Accept", accept)
				}
				h.ServeHTTP(w, r)
				return w
			}
			if private {
				require.Equal(t, http.StatusSeeOther, do("/catalog.ttl", "").Code)
				continue
			}
			for path, want := range map[string]string{"/catalog": "text/turtle", "/catalog.ttl": "text/turtle", "/catalog.rdf": "application/rdf+xml",
				"/catalog.jsonld": "application/ld+json", "/catalog.nt": "application/n-triples",
				"/dataset/" + kept.Slug + ".ttl": "text/turtle", "/dataset/" + kept.Slug + ".rdf": "application/rdf+xml",
				"/dataset/" + kept.Slug + ".jsonld": "application/ld+json", "/dataset/" + kept.Slug + ".nt": "application/n-triples"} {
				w := do(path, "")
				require.Equal(t, http.StatusOK, w.Code, "%s: %s", path, w.Body.String())
				require.True(t, strings.HasPrefix(w.Header().Get("Content-Type"), want), path)
				require.Equal(t, "*", w.Header().Get("Access-Control-Allow-Origin"), path)
				require.Contains(t, w.Body.String(), "https://catalog.example.gov/dataset/"+kept.Slug, path)
				require.NotContains(t, w.Body.String(), held.Slug, "%s: a held dataset is not in the feed", path)
			}
			w := do("/catalog", "application/ld+json")
			require.True(t, strings.HasPrefix(w.Header().Get("Content-Type"), "application/ld+json"))
			w = do("/catalog.ttl?page_size=1000000000", "")
			require.Equal(t, http.StatusBadRequest, w.Code)
			require.Contains(t, w.Body.String(), "over the maximum of 1000")
			require.Equal(t, http.StatusNotFound, do("/dataset/"+held.Slug+".ttl", "").Code)
		}
	})
}
