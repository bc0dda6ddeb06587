package web

import (
	"net/http"
	"strings"

	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/store"
)

// publicRoutes mounts the public catalog (issue 35): pages and feeds anyone may read unless
// Config.PrivateCatalog, answered with CORS * and Cache-Control (feeds.Public). Each mounts
// with public(pattern, handler); the patterns must not collide with the operators' pages.
// docs/catalog.md and web/README.md list them.
func (s *server) publicRoutes(public func(pattern string, h page)) {
	// The answers of /dataset/{slug}{ext}, by ext ("" is the HTML page).
	s.datasetFormats = map[string]datasetFormat{}
	s.datasetFormats[""] = s.datasetHTML      // the public dataset page (dataset_page.go)
	s.datasetFormats[".json"] = s.datasetJSON // the stored DCAT-US record
	public("GET /dataset/{file}", s.datasetFile)

	// DCAT-US data.json of the live catalog and per organization, sitemaps and robots.txt
	// (docs/catalog.md).
	s.feeds.dataJSON = &feeds.DataJSON{Store: s.store, Catalog: s.cfg.Catalog, Logger: s.log}
	s.feeds.sitemap = &feeds.Sitemap{Store: s.store, Catalog: s.cfg.Catalog}
	public("GET /data.json", s.dataJSON(feeds.DCATUS11))
	public("GET /data.v3.json", s.dataJSON(feeds.DCATUS30))
	public("GET /organization/{slug}/data.json", s.dataJSON(feeds.DCATUS11))
	public("GET /organization/{slug}/data.v3.json", s.dataJSON(feeds.DCATUS30))
	public("GET /sitemap.xml", func(w http.ResponseWriter, r *http.Request) error { return s.feeds.sitemap.ServeSitemap(w, r) })
	public("GET "+feeds.SitemapDatasetsPath, func(w http.ResponseWriter, r *http.Request) error { return s.feeds.sitemap.ServeDatasets(w, r) })
	s.pages.Handle("GET /robots.txt", s.handle(s.robots, openAccess))
	s.dcatapRoutes(public)
	public("GET /dataset", s.datasetSearch) // the public search (dataset_search.go)
}

// datasetFormat answers one form of a live dataset's page (/dataset/{slug}{ext}).
type datasetFormat func(w http.ResponseWriter, r *http.Request, ds *store.LiveDataset) error

// datasetFile answers /dataset/{slug} and its variants /dataset/{slug}.ext: the dataset of that
// slug in the form datasetFormats gives for ext. A slug never holds a dot (catalogsync.Slug),
// so the last dot starts ext; an unknown ext is part of the slug (an imported slug), and a
// held or unknown dataset is a 404.
func (s *server) datasetFile(w http.ResponseWriter, r *http.Request) error {
	file := r.PathValue("file")
	slug, ext := file, ""
	if i := strings.LastIndexByte(file, '.'); i > 0 {
		if _, ok := s.datasetFormats[file[i:]]; ok {
			slug, ext = file[:i], file[i:]
		}
	}
	answer, ok := s.datasetFormats[ext]
	if !ok {
		return notFound("no such page: %s", r.URL.Path)
	}
	ds, err := s.store.DatasetFind(r.Context(), &store.DatasetFindParams{Slug: slug})
	if isNotFound(err) {
		return notFound("no dataset %q in this catalog", slug)
	}
	if err != nil {
		return err
	}
	if ds.DuplicateOf != "" {
		return notFound("dataset %q is held as a cross-source duplicate of another source's dataset: it is not in the live catalog", slug)
	}
	return answer(w, r, ds)
}

// publicFeeds are the feeds publicRoutes mounts.
type publicFeeds struct {
	dataJSON *feeds.DataJSON
	sitemap  *feeds.Sitemap
}
