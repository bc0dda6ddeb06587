package pipelinetest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Site is the web of an RDF source's publisher: documents by absolute URL (host, path and
// query), each with its Content-Type. It is both a server and, as the jobs' fetch proxy
// (HarvestRDF), every other host (the corpus's Hydra pages link to demo.ckan.org and
// data.test.org), so absolute page links resolve to it. Unknown URLs are 404.
type Site struct {
	*httptest.Server
	mu   sync.Mutex
	docs map[string]siteDoc
	hits map[string]int
}

type siteDoc struct {
	body        []byte
	contentType string
}

// NewSite starts a Site with no documents; it is closed at the test's cleanup.
func NewSite(t testing.TB) *Site {
	s := &Site{docs: map[string]siteDoc{}, hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := "http://" + r.Host + r.URL.RequestURI()
		s.mu.Lock()
		d, ok := s.docs[key]
		s.hits[key]++
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", d.contentType)
		w.Write(d.body)
	}))
	t.Cleanup(s.Close)
	return s
}

// Serve publishes body at url (absolute) with contentType.
func (s *Site) Serve(url, contentType string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[url] = siteDoc{body: body, contentType: contentType}
}

// ServeCorpus publishes a corpus file (corpustest.Path) at url with contentType.
func (s *Site) ServeCorpus(t testing.TB, url, contentType, name string) {
	t.Helper()
	body, err := os.ReadFile(corpustest.Path(t, name))
	require.NoError(t, err)
	s.Serve(url, contentType, body)
}

// Hits is how many requests url (absolute) has had.
func (s *Site) Hits(url string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[url]
}

// ServeCKANLastPage serves an empty last page after demo.ckan.org's page 1 (its page 2 is on
// the live web), for the Turtle and the RDF/XML page 1. It declares the collection to have the
// 100 datasets of page 1, as the collection would if it had only those.
func (s *Site) ServeCKANLastPage() {
	for _, ext := range []string{"ttl", "rdf"} {
		page := "http://demo.ckan.org/catalog." + ext + "?page=2"
		s.Serve(page, "text/turtle", []byte("@prefix hydra: <http://www.w3.org/ns/hydra/core#> .\n"+
			"<"+page+"> a hydra:PagedCollection ; hydra:totalItems 100 .\n"))
	}
}

// HarvestRDF harvests the DCAT-AP rdf source at src.URL through site (the jobs' fetch proxy);
// src's SourceType and SchemaType are set to rdf and dcat-ap.
func (h *Harness) HarvestRDF(t testing.TB, site *Site, src Source) Report {
	t.Helper()
	cfg := h.Config
	proxy, err := url.Parse(site.URL)
	require.NoError(t, err)
	cfg.Fetch.Proxy = proxy
	src.SourceType, src.SchemaType = harvest.SourceRDF, harvest.SchemaDCATAP
	return h.harvest(t, cfg, src)
}

// LiveIdentifiers returns the sorted identifiers of a source's datasets.
func (h *Harness) LiveIdentifiers(t testing.TB, sourceID string) []string {
	t.Helper()
	ds, err := h.Store.DatasetList(t.Context(), &store.DatasetListParams{SourceID: sourceID})
	require.NoError(t, err)
	var out []string
	for _, d := range ds {
		out = append(out, d.Identifier)
	}
	sort.Strings(out)
	return out
}

// RecordBodies returns the source_raw of the newest record of each of a source's live
// datasets, by identifier.
func (h *Harness) RecordBodies(t testing.TB, sourceID string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, id := range h.LiveIdentifiers(t, sourceID) {
		r, err := h.Store.RecordLatest(t.Context(), &store.RecordLatestParams{SourceID: sourceID, Identifier: id})
		require.NoError(t, err)
		out[id] = r.SourceRaw
	}
	return out
}

// ErrorMessages returns the messages of all a job's record error rows of severity sev
// (harvest.SeverityError or harvest.SeverityWarning), in the store's order.
func (h *Harness) ErrorMessages(t testing.TB, jobID string, sev harvest.Severity) []string {
	t.Helper()
	var out []string
	require.NoError(t, h.Store.RecordErrorStream(t.Context(), jobID, func(e *store.RecordError) error {
		if e.Severity == sev {
			out = append(out, e.Message)
		}
		return nil
	}))
	return out
}

// TotalHits is how many requests the site has had, for any URL.
func (s *Site) TotalHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.hits {
		n += c
	}
	return n
}
