package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// rdfSite is the web of an RDF source's publisher: documents by absolute URL (host, path and
// query), each with its Content-Type. It is both a server and, through --fetch-proxy, every
// other host (the corpus's Hydra pages link to demo.ckan.org and data.test.org), so absolute
// page links resolve to it.
type rdfSite struct {
	*httptest.Server
	mu   sync.Mutex
	docs map[string]rdfDoc
	hits map[string]int
}

type rdfDoc struct {
	body        []byte
	contentType string
}

func newRDFSite(t *testing.T) *rdfSite {
	s := &rdfSite{docs: map[string]rdfDoc{}, hits: map[string]int{}}
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

// serve publishes body at url (absolute) with contentType.
func (s *rdfSite) serve(url, contentType string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[url] = rdfDoc{body: body, contentType: contentType}
}

// serveCorpus publishes a corpus file at url with contentType.
func (s *rdfSite) serveCorpus(t *testing.T, url, contentType, name string) {
	t.Helper()
	body, err := os.ReadFile(corpustest.Path(t, name))
	require.NoError(t, err)
	s.serve(url, contentType, body)
}

// serveCKANLastPage serves an empty last page after demo.ckan.org's page 1 (its page 2 is on
// the live web), for the Turtle and the RDF/XML page 1. It declares the collection to have the
// 100 datasets of page 1, as the collection would if it had only those.
func (s *rdfSite) serveCKANLastPage() {
	for _, ext := range []string{"ttl", "rdf"} {
		page := "http://demo.ckan.org/catalog." + ext + "?page=2"
		s.serve(page, "text/turtle", []byte("@prefix hydra: <http://www.w3.org/ns/hydra/core#> .\n"+
			"<"+page+"> a hydra:PagedCollection ; hydra:totalItems 100 .\n"))
	}
}

// harvestRDF harvests the rdf source at url through the site.
func (b *testBundle) harvestRDF(t *testing.T, site *rdfSite, url string, extra ...string) (jobReport, int) {
	t.Helper()
	args := append([]string{"--url", url, "--source-type", "rdf", "--schema-type", "dcat-ap",
		"--fetch-proxy", site.URL}, extra...)
	return b.harvest(t, args...)
}

func mustComplete(t *testing.T, rep jobReport, code int) {
	t.Helper()
	require.Equal(t, exitOK, code, "job errors: %v", rep.JobErrors)
	require.Equal(t, "complete", rep.Status, "job errors: %v", rep.JobErrors)
}

// liveIdentifiers returns the identifiers of a source's datasets.
func liveIdentifiers(t *testing.T, st store.Store, sourceID string) []string {
	t.Helper()
	ds, err := st.DatasetList(t.Context(), &store.DatasetListParams{SourceID: sourceID})
	require.NoError(t, err)
	var out []string
	for _, d := range ds {
		out = append(out, d.Identifier)
	}
	sort.Strings(out)
	return out
}

// Acceptance 1: one graph in two syntaxes is one catalog: the second job changes nothing.
func TestRDFSameGraphInTwoSyntaxes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	site := newRDFSite(t)
	const url = "http://portal.test/catalog"
	site.serveCorpus(t, url, "text/turtle", "dcatap/semic-hvd-3.0-ms-catalogue.ttl")
	first, code := b.harvestRDF(t, site, url)
	mustComplete(t, first, code)
	require.Positive(t, first.Added)
	bodies := recordBodies(t, b.st, first.SourceID)

	site.serveCorpus(t, url, "application/ld+json", "dcatap/semic-hvd-3.0-ms-catalogue.jsonld")
	second, code := b.harvestRDF(t, site, url)
	mustComplete(t, second, code)
	require.Zero(t, second.Added+second.Updated+second.Deleted, "the same graph as JSON-LD changes nothing")
	require.Equal(t, first.Added, second.Unchanged)

	// A force harvest writes every record again: the JSON-LD record graphs are the Turtle ones.
	forced, code := b.harvestRDF(t, site, url, "--job-type", "force_harvest")
	mustComplete(t, forced, code)
	require.Equal(t, first.Added, forced.Updated)
	require.Equal(t, bodies, recordBodies(t, b.st, first.SourceID))
}

// Acceptance 1, second half: demo.ckan.org's page 1 as Turtle, then as RDF/XML at the same URL
// (the Content-Type decides the syntax, not the URL's extension): nothing is updated.
func TestRDFTurtleThenRDFXML(t *testing.T) {
	t.Parallel()
	b := setup(t)
	site := newRDFSite(t)
	const url = "http://demo.ckan.org/catalog.ttl"
	site.serveCKANLastPage()
	site.serveCorpus(t, url, "text/turtle", "dcatap/ckan-demo-catalog-hydra.ttl")
	first, code := b.harvestRDF(t, site, url)
	mustComplete(t, first, code)
	require.Equal(t, 100, first.Total, "100 datasets on page 1 (corpus NOTES §12)")
	require.Equal(t, 1, site.hits["http://demo.ckan.org/catalog.ttl?page=2"], "the next page was read")

	bodies := recordBodies(t, b.st, first.SourceID)
	require.Len(t, bodies, first.Added)

	site.serveCorpus(t, url, "application/rdf+xml", "dcatap/ckan-demo-catalog-hydra.rdf")
	second, code := b.harvestRDF(t, site, url)
	mustComplete(t, second, code)
	require.Equal(t, 100, second.Total)
	require.Zero(t, second.Added+second.Updated+second.Deleted, "the same datasets as RDF/XML change nothing")
	require.Equal(t, 1, site.hits["http://demo.ckan.org/catalog.rdf?page=2"])

	forced, code := b.harvestRDF(t, site, url, "--job-type", "force_harvest")
	mustComplete(t, forced, code)
	require.Equal(t, bodies, recordBodies(t, b.st, first.SourceID), "the RDF/XML record graphs are the Turtle ones")
}

// Acceptance 2: nested blank nodes get the same skolem IRIs across runs and across a
// re-serialization as N-Triples with other blank-node labels.
func TestRDFSkolemIRIsAreStable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	site := newRDFSite(t)
	const url = "http://fdk.test/catalog"
	site.serveCorpus(t, url, "text/turtle", "dcatap/fdk-norway-nested-blank-nodes.ttl")
	// With the default profile its one dataset is an error row: it has no dct:description.
	checked, code := b.harvestRDF(t, site, url, "--job-type", "validate")
	mustComplete(t, checked, code)
	require.Equal(t, 1, checked.Errored)
	errs, _, err := b.st.RecordErrorList(t.Context(), &store.RecordErrorListParams{JobID: checked.JobID})
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Contains(t, errs[0].Message, "dct:description")
	// FDK's fixture harvested as FDK does, without SHACL.
	first, code := b.harvestRDF(t, site, url, "--option", "shacl_profile=none")
	mustComplete(t, first, code)
	require.Positive(t, first.Added)
	bodies := recordBodies(t, b.st, first.SourceID)
	for id, body := range bodies {
		require.NotContains(t, body, "_:", "%s: every blank node is skolemized", id)
		require.Contains(t, body, "/.well-known/genid/", id)
	}

	again, code := b.harvestRDF(t, site, url)
	mustComplete(t, again, code)
	require.Equal(t, first.Added, again.Unchanged, "the same file again: all unchanged")

	// The same graph as N-Triples, with every blank node relabelled.
	f, err := os.Open(corpustest.Path(t, "dcatap/fdk-norway-nested-blank-nodes.ttl"))
	require.NoError(t, err)
	defer f.Close()
	var ts []rdf.Triple
	relabel := func(x rdf.Term) rdf.Term {
		if x.IsBlank() {
			return rdf.Blank("other" + strings.Repeat("x", len(x.Value)) + x.Value)
		}
		return x
	}
	require.NoError(t, rdf.Parse(f, rdf.Turtle, url, func(tr rdf.Triple) error {
		ts = append([]rdf.Triple{{S: relabel(tr.S), P: tr.P, O: relabel(tr.O)}}, ts...) // reversed order too
		return nil
	}))
	var nt bytes.Buffer
	require.NoError(t, rdf.WriteNTriples(&nt, ts))
	site.serve(url, "application/n-triples", nt.Bytes())
	forced, code := b.harvestRDF(t, site, url, "--job-type", "force_harvest")
	mustComplete(t, forced, code)
	require.Equal(t, forced.Total, forced.Updated, "a force harvest writes every record again")
	require.Equal(t, bodies, recordBodies(t, b.st, first.SourceID), "the same record graphs, byte for byte")
}

// recordBodies returns the source_raw of the newest record of each of a source's live datasets,
// by identifier.
func recordBodies(t *testing.T, st store.Store, sourceID string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, id := range liveIdentifiers(t, st, sourceID) {
		r, err := st.RecordLatest(t.Context(), &store.RecordLatestParams{SourceID: sourceID, Identifier: id})
		require.NoError(t, err)
		out[id] = r.SourceRaw
	}
	return out
}

// Acceptance 3: a file that does not parse fails the job with its line and column, and
// deletes nothing.
func TestRDFSyntaxErrorsFailTheJob(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, contentType string }{
		{"INVALID-fdk-norway-iri-with-space.ttl", "text/turtle"},
		{"INVALID-semic-3.0-bee-population-series-slash-in-pname.ttl", "text/turtle"},
		{"INVALID-opendata-swiss-import-multiple-node-elements.rdf", "application/rdf+xml"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			site := newRDFSite(t)
			const url = "http://publisher.test/catalog"
			site.serveCorpus(t, url, "text/turtle", "dcatap/fdk-harvest-response-0.ttl")
			first, code := b.harvestRDF(t, site, url, "--option", "shacl_profile=none")
			mustComplete(t, first, code)
			live := liveIdentifiers(t, b.st, first.SourceID)
			require.NotEmpty(t, live)

			site.serveCorpus(t, url, tc.contentType, "dcatap/"+tc.file)
			rep, code := b.harvestRDF(t, site, url, "--job-type", "force_harvest")
			require.Equal(t, exitJobError, code)
			require.Equal(t, "error", rep.Status)
			require.Len(t, rep.JobErrors, 1)
			require.Regexp(t, `\[line: [1-9][0-9]*, col: [1-9][0-9]*\]`, rep.JobErrors[0])
			require.Zero(t, rep.Deleted)
			require.Equal(t, live, liveIdentifiers(t, b.st, first.SourceID), "nothing was deleted")
		})
	}
}

// Acceptance 4: paged collections are followed to the end; a loop of two pages is a job error.
func TestRDFPaging(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"udata-paged-collection", "udata-hydra-partial-collection"} {
		t.Run(prefix, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			site := newRDFSite(t)
			const url = "http://data.test.org/catalog.jsonld"
			site.serveCorpus(t, url, "application/ld+json", "dcatap/"+prefix+"-page1.jsonld")
			site.serveCorpus(t, url+"?page=2", "application/ld+json", "dcatap/"+prefix+"-page2.jsonld")
			rep, code := b.harvestRDF(t, site, url)
			mustComplete(t, rep, code)
			require.Equal(t, 4, rep.Total, "totalItems is 4, over two pages")
			require.Equal(t, 1, site.hits[url+"?page=2"])
		})
	}
	t.Run("loop", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		site := newRDFSite(t)
		page := func(self, next string) []byte {
			return []byte(`@prefix hydra: <http://www.w3.org/ns/hydra/core#> .
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
<http://loop.test/catalog> a dcat:Catalog ; dcat:dataset <http://loop.test/d/` + self + `> .
<http://loop.test/d/` + self + `> a dcat:Dataset ; dct:title "` + self + `" .
<` + self + `> a hydra:PartialCollectionView ; hydra:next "` + next + `" .
`)
		}
		a, c := "http://loop.test/catalog?page=1", "http://loop.test/catalog?page=2"
		site.serve(a, "text/turtle", page(a, c))
		site.serve(c, "text/turtle", page(c, a))
		rep, code := b.harvestRDF(t, site, a)
		require.Equal(t, exitJobError, code)
		require.Len(t, rep.JobErrors, 1)
		require.Contains(t, rep.JobErrors[0], "paging loop")
		require.Zero(t, rep.Total)
	})
}

// reportEvents collects the harvest report events published on natsURL.
func reportEvents(t *testing.T, natsURL string) func(jobID string) harvestReport {
	t.Helper()
	nc, err := nats.Connect(natsURL)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	var mu sync.Mutex
	got := map[string]harvestReport{}
	_, err = nc.Subscribe(harvest.SubjectReport, func(m *nats.Msg) {
		var r harvestReport
		if json.Unmarshal(m.Data, &r) == nil {
			mu.Lock()
			got[r.JobID] = r
			mu.Unlock()
		}
	})
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	return func(jobID string) harvestReport {
		t.Helper()
		deadline := time.Now().Add(5 * time.Minute) // a failsafe: the job has finished already
		for time.Now().Before(deadline) {
			mu.Lock()
			r, ok := got[jobID]
			mu.Unlock()
			if ok {
				return r
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("no report event for job %s", jobID)
		return harvestReport{}
	}
}

type harvestReport struct {
	ID               string             `json:"id"` // the source's, as FDK's report
	JobID            string             `json:"jobId"`
	ChangedCatalogs  []harvest.Resource `json:"changedCatalogs"`
	ChangedResources []harvest.Resource `json:"changedResources"`
	RemovedResources []harvest.Resource `json:"removedResources"`
}

func uris(rs []harvest.Resource) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.URI)
	}
	sort.Strings(out)
	return out
}

// Acceptance 5: FDK's own fixtures, in FDK's order.
func TestRDFFDKFixtures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	report := reportEvents(t, b.natsURL)
	site := newRDFSite(t)
	const url = "http://fdk.test/harvest"
	const dataset0, datasetNew = "https://testdirektoratet.no/model/dataset/0", "https://testdirektoratet.no/model/dataset/new"
	const catalog0 = "https://testdirektoratet.no/model/dataset-catalog/0"
	// FDK's fixtures are not valid DCAT-AP (their datasets have no dct:description), and FDK's
	// harvester does not validate: harvest them as FDK does.
	fdk := []string{"--option", "shacl_profile=none"}

	site.serveCorpus(t, url, "text/turtle", "dcatap/fdk-harvest-response-0.ttl")
	first, code := b.harvestRDF(t, site, url, fdk...)
	mustComplete(t, first, code)
	require.Equal(t, 1, first.Added, "dataset/0")
	require.Equal(t, 1, first.Errored, "the blank-node dataset is an error row")
	require.Equal(t, []string{dataset0}, liveIdentifiers(t, b.st, first.SourceID))
	errs, _, err := b.st.RecordErrorList(t.Context(), &store.RecordErrorListParams{JobID: first.JobID})
	require.NoError(t, err)
	var rows []string
	for _, e := range errs {
		if e.Severity == harvest.SeverityError {
			rows = append(rows, e.Message)
		}
	}
	require.Len(t, rows, 1, "one error row (and dataset/0's transform warnings)")
	require.Contains(t, rows[0], "blank node")
	ev := report(first.JobID)
	require.Equal(t, first.SourceID, ev.ID, "id names the source, as in FDK's report")
	require.Equal(t, []string{dataset0}, uris(ev.ChangedResources))

	// The catalog alone changes (its title): dataset/0 is unchanged, catalog/0 changed.
	baseline, err := os.ReadFile(corpustest.Path(t, "dcatap/fdk-harvest-response-0.ttl"))
	require.NoError(t, err)
	retitled := bytes.Replace(baseline, []byte(`"Datasettkatalog for Testdirektoratet"@nb`), []byte(`"Datasettkatalog"@nb`), 1)
	require.NotEqual(t, baseline, retitled)
	site.serve(url, "text/turtle", retitled)
	diff, code := b.harvestRDF(t, site, url)
	mustComplete(t, diff, code)
	require.Equal(t, 1, diff.Unchanged, "dataset/0 is unchanged")
	require.Zero(t, diff.Added+diff.Updated+diff.Deleted)
	ev = report(diff.JobID)
	require.Equal(t, []string{catalog0}, uris(ev.ChangedCatalogs))
	require.Empty(t, ev.ChangedResources)

	// FDK's catalog-diff fixture changes the catalog too, and also turns dataset/0's
	// distribution's access service from a blank node into a (relative) IRI: that is in
	// dataset/0's graph, so dataset/0 is updated (FDK's own closure rule says the same).
	site.serveCorpus(t, url, "text/turtle", "dcatap/fdk-harvest-response-0-catalog-diff.ttl")
	diff, code = b.harvestRDF(t, site, url)
	mustComplete(t, diff, code)
	require.Equal(t, 1, diff.Updated, "dataset/0's access service is another node")
	ev = report(diff.JobID)
	require.Equal(t, []string{catalog0}, uris(ev.ChangedCatalogs), "a dataset inside it changed (FDK's catalog graph has it)")
	require.Equal(t, []string{dataset0}, uris(ev.ChangedResources))

	site.serveCorpus(t, url, "text/turtle", "dcatap/fdk-harvest-response-0-old-dataset-removed.ttl")
	// The source has one live dataset: deleting it is the whole source, over the default share.
	removed, code := b.harvestRDF(t, site, url, "--max-delete-share", "1")
	mustComplete(t, removed, code)
	require.Equal(t, 1, removed.Deleted)
	require.Equal(t, 1, removed.Added)
	require.Equal(t, []string{datasetNew}, liveIdentifiers(t, b.st, first.SourceID))
	ev = report(removed.JobID)
	require.Equal(t, []string{dataset0}, uris(ev.RemovedResources))
	require.Equal(t, []string{datasetNew}, uris(ev.ChangedResources))
	for _, r := range append(ev.RemovedResources, ev.ChangedResources...) {
		require.Equal(t, harvest.FdkID(r.URI), r.FdkID, "fdkId is FDK's name-based UUID of the IRI")
	}
}

// Acceptance 6: every valid corpus RDF file harvests to a complete job whose counts add up,
// with DCAT-US rows in the dataset table and search hits on their titles.
func TestRDFEveryCorpusFile(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "dcatap", "*"))
	require.NoError(t, err)
	types := map[string]string{".ttl": "text/turtle", ".rdf": "application/rdf+xml", ".jsonld": "application/ld+json",
		".nt": "application/n-triples"}
	for _, path := range files {
		name := filepath.Base(path)
		// A second page alone is a short listing (its hydra:totalItems counts both pages): it
		// is read as its first page's next page.
		if strings.HasPrefix(name, "INVALID-") || strings.HasSuffix(name, "-page2.jsonld") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.extra = []string{"--opensearch-url", "", "--data-dir", t.TempDir(), "--search-index", "rdf"}
			site := newRDFSite(t)
			url := "http://corpus.test/" + name
			ct := types[filepath.Ext(name)]
			require.NotEmpty(t, ct, "a content type for %s", name)
			site.serveCorpus(t, url, ct, "dcatap/"+name)
			// The pages the corpus's first pages link to: udata's second page, and an empty
			// last page for demo.ckan.org's (its page 2 is on the live web).
			site.serveCorpus(t, "http://data.test.org/catalog.jsonld?page=2", "application/ld+json",
				"dcatap/"+strings.Replace(name, "page1", "page2", 1))
			site.serveCKANLastPage()
			rep, code := b.harvestRDF(t, site, url)
			mustComplete(t, rep, code)
			require.Positive(t, rep.Total, "%s has datasets", name)
			ds, err := b.st.DatasetList(t.Context(), &store.DatasetListParams{SourceID: rep.SourceID})
			require.NoError(t, err)
			require.Len(t, ds, rep.Added)
			for _, d := range ds {
				var dcat struct {
					Title string `json:"title"`
				}
				require.NoError(t, json.Unmarshal(d.DCAT, &dcat))
				require.NotEmpty(t, dcat.Title, d.Identifier)
			}
			if len(ds) > 0 { // a search for a dataset's title finds it
				var dcat struct {
					Title string `json:"title"`
				}
				require.NoError(t, json.Unmarshal(ds[0].DCAT, &dcat))
				code, out := b.runIndexCommand(t, "search", dcat.Title, "--per-page", "100")
				require.Equal(t, exitOK, code)
				var res search.Result
				require.NoError(t, json.Unmarshal([]byte(out), &res), out)
				found := false
				for _, h := range res.Hits {
					found = found || h.ID == ds[0].ID
				}
				require.True(t, found, "searching %q finds %s: %s", dcat.Title, ds[0].Identifier, out)
			}
		})
	}
}

// Issue 25 item 26: a source's shacl_profile is part of what makes a record unchanged. A
// dataset without dct:description passes with no profile, fails DCAT-AP 3.0.0 once the source
// moves to it (stricter: the error appears, the live dataset is kept), and passes again when
// the source moves back (looser: the error goes away). A dataset valid under every profile is
// validated again at each change and stays unchanged: its dataset row is not rewritten. Before
// the fix the graph's fingerprint made each job after the first "not modified", whatever the
// profile.
func TestRDFProfileChangeRevalidates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	site := newRDFSite(t)
	const url = "http://profile.test/catalog.ttl"
	const lacking, valid = "http://profile.test/dataset/1", "http://profile.test/dataset/2"
	site.serve(url, "text/turtle", []byte(`@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
<http://profile.test/catalog> a dcat:Catalog ; dct:title "C"@en ; dct:description "Catalog"@en ;
	dct:publisher <http://profile.test/org> ; dcat:dataset <`+lacking+`>, <`+valid+`> .
<`+lacking+`> a dcat:Dataset ; dct:title "No description"@en .
<`+valid+`> a dcat:Dataset ; dct:title "Described"@en ; dct:description "A dataset"@en .
`))
	validationErrors := func(jobID string) []string {
		t.Helper()
		errs, _, err := b.st.RecordErrorList(t.Context(), &store.RecordErrorListParams{JobID: jobID})
		require.NoError(t, err)
		var out []string
		for _, e := range errs {
			if e.Severity == harvest.SeverityError {
				out = append(out, e.Message)
			}
		}
		return out
	}
	counts := func(r jobReport) [4]int { return [4]int{r.Added, r.Updated, r.Unchanged, r.Errored} }

	loose, code := b.harvestRDF(t, site, url, "--option", "shacl_profile=none")
	mustComplete(t, loose, code)
	require.Equal(t, [4]int{2, 0, 0, 0}, counts(loose))

	strict, code := b.harvestRDF(t, site, url, "--option", "shacl_profile=dcat-ap-3.0.0")
	mustComplete(t, strict, code)
	require.Equal(t, [4]int{0, 0, 1, 1}, counts(strict), "both are validated again; one fails")
	require.Equal(t, 1, strict.Validated)
	require.Contains(t, strings.Join(validationErrors(strict.JobID), "\n"), lacking+" dct:description")
	require.Equal(t, []string{lacking, valid}, liveIdentifiers(t, b.st, strict.SourceID), "an invalid record deletes nothing")

	again, code := b.harvestRDF(t, site, url, "--option", "shacl_profile=dcat-ap-3.0.0")
	mustComplete(t, again, code)
	require.Equal(t, [4]int{0, 0, 1, 1}, counts(again), "same profile: errored still, not checked again")
	require.Contains(t, strings.Join(validationErrors(again.JobID), "\n"), "dct:description", "its rows are carried")

	back, code := b.harvestRDF(t, site, url, "--option", "shacl_profile=none")
	mustComplete(t, back, code)
	require.Equal(t, [4]int{0, 1, 1, 0}, counts(back), "the dataset without a description passes again")
	require.Empty(t, validationErrors(back.JobID))

	same, code := b.harvestRDF(t, site, url, "--option", "shacl_profile=none")
	mustComplete(t, same, code)
	require.Equal(t, [4]int{0, 0, 2, 0}, counts(same))

	other, code := b.harvestRDF(t, site, url, "--option", "shacl_profile=dcat-ap-2.1.1")
	mustComplete(t, other, code)
	require.Equal(t, [4]int{0, 0, 1, 1}, counts(other), "DCAT-AP 2.1.1 wants a description too")
	require.Contains(t, strings.Join(validationErrors(other.JobID), "\n"), lacking+" dct:description")

	ds, err := b.st.DatasetGet(t.Context(), &store.DatasetGetParams{SourceID: loose.SourceID, Identifier: valid})
	require.NoError(t, err)
	require.Equal(t, harvest.RecordID(loose.JobID, valid), ds.RecordID, "the valid dataset was never rewritten")
}
