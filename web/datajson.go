package web

import (
	"net/http"

	"github.com/harvester-dev/harvester/feeds"
)

// dataJSON answers a DCAT-US data.json of the whole live catalog, or with {slug} of one
// organization's (404 for an unknown slug), in DCAT-US version (feeds.DCATUS11 or DCATUS30).
func (s *server) dataJSON(version string) page {
	return func(w http.ResponseWriter, r *http.Request) error {
		p := feeds.DataJSONParams{Version: version, Path: r.URL.Path}
		if slug := r.PathValue("slug"); slug != "" {
			org, err := s.store.OrganizationFindBySlug(r.Context(), slug)
			if isNotFound(err) {
				return notFound("no organization %q in this catalog", slug)
			}
			if err != nil {
				return err
			}
			p.OrganizationID = org.ID
		}
		return s.feeds.dataJSON.Serve(w, r, p)
	}
}
