package web

import (
	"errors"
	"net/http"

	"github.com/harvester-dev/harvester/feeds/dcatapfeed"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/store"
)

// dcatapRoutes mounts the DCAT-AP feed (feeds/dcatapfeed): the catalog's pages at /catalog
// (syntax by Accept) and /catalog.ttl|.rdf|.jsonld|.nt, and each dataset's document at
// /dataset/{slug}.ttl|.rdf|.jsonld|.nt.
func (s *server) dcatapRoutes(public func(pattern string, h page)) {
	feed := dcatapfeed.New(s.store, s.cfg.Catalog)
	catalog := func(format rdf.Format) page {
		return func(w http.ResponseWriter, r *http.Request) error {
			return feedError(w, feed.ServeCatalog(w, r, format))
		}
	}
	public("GET /catalog", catalog(""))
	for ext, format := range dcatapfeed.Extensions {
		public("GET /catalog"+ext, catalog(format))
		s.datasetFormats[ext] = func(w http.ResponseWriter, r *http.Request, ds *store.LiveDataset) error {
			return feed.ServeDataset(w, r, ds, format)
		}
	}
}

// feedError answers a feed's refusal as plain text (400 for a bad parameter, 404 for an
// unknown organization), for the machines that read feeds; other errors go to the error page.
func feedError(w http.ResponseWriter, err error) error {
	var bad *dcatapfeed.BadRequest
	var missing *dcatapfeed.NotFound
	switch {
	case errors.As(err, &bad):
		http.Error(w, bad.Msg, http.StatusBadRequest)
		return nil
	case errors.As(err, &missing):
		http.Error(w, missing.Msg, http.StatusNotFound)
		return nil
	}
	return err
}
