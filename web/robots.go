package web

import (
	"net/http"
	"strings"

	"github.com/harvester-dev/harvester/feeds"
)

// operatorPaths are the path prefixes of the operators' pages and API that robots.txt keeps
// crawlers out of (routes mounts them).
var operatorPaths = []string{"/api/v1/", "/harvest_sources", "/harvest_jobs", "/harvest_records", "/organizations",
	"/datasets", "/search", "/validate", "/dashboard", "/sign-in", "/sign-out", "/healthz", "/readyz", "/metrics"}

// robots answers /robots.txt (RFC 9309): the public catalog allowed, the operators' pages and
// /api/v1 disallowed, and the sitemap named; with Config.PrivateCatalog everything disallowed.
// Anyone may read it, whatever the catalog's access.
func (s *server) robots(w http.ResponseWriter, r *http.Request) error {
	var b strings.Builder
	b.WriteString("# Harvester: the public catalog is open to crawlers; the operators' pages are not.\nUser-agent: *\n")
	if s.cfg.PrivateCatalog {
		b.WriteString("Disallow: /\n")
	} else {
		for _, p := range operatorPaths {
			b.WriteString("Disallow: " + p + "\n")
		}
		b.WriteString("Allow: /\n\nSitemap: " + s.cfg.Catalog.Base(r) + "/sitemap.xml\n")
	}
	feeds.Public(w)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, err := w.Write([]byte(b.String()))
	return err
}
