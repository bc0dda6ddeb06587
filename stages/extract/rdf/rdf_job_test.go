package rdf_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// The RDF source of EXTRACT through whole jobs: one graph in any syntax is one catalog, blank
// nodes are skolemized stably, a file that does not parse fails the job, Hydra pages are followed.

// rdfSource starts a harness and a site serving the corpus file at url as contentType.
func rdfSource(t *testing.T, url, contentType, file string) (*pipelinetest.Harness, *pipelinetest.Site) {
	h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
	site.ServeCorpus(t, url, contentType, file)
	return h, site
}

// Acceptance 1: one graph in two syntaxes is one catalog: the second job changes nothing.
func TestRDFSameGraphInTwoSyntaxes(t *testing.T) {
	t.Parallel()
	const url = "http://portal.test/catalog"
	h, site := rdfSource(t, url, "text/turtle", "dcatap/semic-hvd-3.0-ms-catalogue.ttl")
	first := h.HarvestRDF(t, site, pipelinetest.Source{URL: url})
	pipelinetest.MustComplete(t, first)
	require.Positive(t, first.Added)
	bodies := h.RecordBodies(t, first.SourceID)

	site.ServeCorpus(t, url, "application/ld+json", "dcatap/semic-hvd-3.0-ms-catalogue.jsonld")
	second := h.HarvestRDF(t, site, pipelinetest.Source{URL: url})
	pipelinetest.MustComplete(t, second)
	require.Zero(t, second.Added+second.Updated+second.Deleted, "the same graph as JSON-LD changes nothing")
	require.Equal(t, first.Added, second.Unchanged)

	// A force harvest writes every record again: the JSON-LD record graphs are the Turtle ones.
	forced := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, JobType: harvest.JobForceHarvest})
	pipelinetest.MustComplete(t, forced)
	require.Equal(t, first.Added, forced.Updated)
	require.Equal(t, bodies, h.RecordBodies(t, first.SourceID))
}

// Acceptance 1, second half: demo.ckan.org's page 1 as Turtle, then as RDF/XML at the same URL
// (the Content-Type decides the syntax, not the URL's extension): nothing is updated.
func TestRDFTurtleThenRDFXML(t *testing.T) {
	t.Parallel()
	const url = "http://demo.ckan.org/catalog.ttl"
	h, site := rdfSource(t, url, "text/turtle", "dcatap/ckan-demo-catalog-hydra.ttl")
	site.ServeCKANLastPage()
	first := h.HarvestRDF(t, site, pipelinetest.Source{URL: url})
	pipelinetest.MustComplete(t, first)
	require.Equal(t, 100, first.Total, "100 datasets on page 1 (corpus NOTES §12)")
	require.Equal(t, 1, site.Hits("http://demo.ckan.org/catalog.ttl?page=2"), "the next page was read")

	bodies := h.RecordBodies(t, first.SourceID)
	require.Len(t, bodies, first.Added)

	site.ServeCorpus(t, url, "application/rdf+xml", "dcatap/ckan-demo-catalog-hydra.rdf")
	second := h.HarvestRDF(t, site, pipelinetest.Source{URL: url})
	pipelinetest.MustComplete(t, second)
	require.Equal(t, 100, second.Total)
	require.Zero(t, second.Added+second.Updated+second.Deleted, "the same datasets as RDF/XML change nothing")
	require.Equal(t, 1, site.Hits("http://demo.ckan.org/catalog.rdf?page=2"))

	forced := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, JobType: harvest.JobForceHarvest})
	pipelinetest.MustComplete(t, forced)
	require.Equal(t, bodies, h.RecordBodies(t, first.SourceID), "the RDF/XML record graphs are the Turtle ones")
}

// Acceptance 2: nested blank nodes get the same skolem IRIs across runs and across a
// re-serialization as N-Triples with other blank-node labels.
func TestRDFSkolemIRIsAreStable(t *testing.T) {
	t.Parallel()
	const url = "http://fdk.test/catalog"
	h, site := rdfSource(t, url, "text/turtle", "dcatap/fdk-norway-nested-blank-nodes.ttl")
	// With the default profile its one dataset is an error row: it has no dct:description.
	checked := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, JobType: harvest.JobValidate})
	pipelinetest.MustComplete(t, checked)
	require.Equal(t, 1, checked.Errored)
	errs, _, err := h.Store.RecordErrorList(t.Context(), &store.RecordErrorListParams{JobID: checked.JobID})
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Contains(t, errs[0].Message, "dct:description")
	// FDK's fixture harvested as FDK does, without SHACL.
	first := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, Options: map[string]string{"shacl_profile": "none"}})
	pipelinetest.MustComplete(t, first)
	require.Positive(t, first.Added)
	bodies := h.RecordBodies(t, first.SourceID)
	for id, body := range bodies {
		require.NotContains(t, body, "_:", "%s: every blank node is skolemized", id)
		require.Contains(t, body, "/.well-known/genid/", id)
	}

	again := h.HarvestRDF(t, site, pipelinetest.Source{URL: url})
	pipelinetest.MustComplete(t, again)
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
	site.Serve(url, "application/n-triples", nt.Bytes())
	forced := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, JobType: harvest.JobForceHarvest})
	pipelinetest.MustComplete(t, forced)
	require.Equal(t, forced.Total, forced.Updated, "a force harvest writes every record again")
	require.Equal(t, bodies, h.RecordBodies(t, first.SourceID), "the same record graphs, byte for byte")
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
			h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
			const url = "http://publisher.test/catalog"
			site.ServeCorpus(t, url, "text/turtle", "dcatap/fdk-harvest-response-0.ttl")
			first := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, Options: map[string]string{"shacl_profile": "none"}})
			pipelinetest.MustComplete(t, first)
			live := h.LiveIdentifiers(t, first.SourceID)
			require.NotEmpty(t, live)

			site.ServeCorpus(t, url, tc.contentType, "dcatap/"+tc.file)
			rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, JobType: harvest.JobForceHarvest})
			require.Equal(t, "error", rep.Status)
			require.Len(t, rep.JobErrors, 1)
			require.Regexp(t, `\[line: [1-9][0-9]*, col: [1-9][0-9]*\]`, rep.JobErrors[0])
			require.True(t, strings.HasPrefix(rep.JobErrors[0], harvest.TypeExtractError+": "),
				"EXTRACT's job failure, ended by its runner at once (not a give-up's extract.StageError): %s", rep.JobErrors[0])
			require.Zero(t, rep.Deleted)
			require.Equal(t, live, h.LiveIdentifiers(t, first.SourceID), "nothing was deleted")
		})
	}
}

// Acceptance 4: paged collections are followed to the end; a loop of two pages is a job error.
func TestRDFPaging(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"udata-paged-collection", "udata-hydra-partial-collection"} {
		t.Run(prefix, func(t *testing.T) {
			t.Parallel()
			h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
			const url = "http://data.test.org/catalog.jsonld"
			site.ServeCorpus(t, url, "application/ld+json", "dcatap/"+prefix+"-page1.jsonld")
			site.ServeCorpus(t, url+"?page=2", "application/ld+json", "dcatap/"+prefix+"-page2.jsonld")
			rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: url})
			pipelinetest.MustComplete(t, rep)
			require.Equal(t, 4, rep.Total, "totalItems is 4, over two pages")
			require.Equal(t, 1, site.Hits(url+"?page=2"))
		})
	}
	t.Run("loop", func(t *testing.T) {
		t.Parallel()
		h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
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
		site.Serve(a, "text/turtle", page(a, c))
		site.Serve(c, "text/turtle", page(c, a))
		rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: a})
		require.Equal(t, "error", rep.Status)
		require.Len(t, rep.JobErrors, 1)
		require.Contains(t, rep.JobErrors[0], "paging loop")
		require.Zero(t, rep.Total)
	})
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
			h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
			url := "http://corpus.test/" + name
			ct := types[filepath.Ext(name)]
			require.NotEmpty(t, ct, "a content type for %s", name)
			site.ServeCorpus(t, url, ct, "dcatap/"+name)
			// The pages the corpus's first pages link to: udata's second page, and an empty
			// last page for demo.ckan.org's (its page 2 is on the live web).
			site.ServeCorpus(t, "http://data.test.org/catalog.jsonld?page=2", "application/ld+json",
				"dcatap/"+strings.Replace(name, "page1", "page2", 1))
			site.ServeCKANLastPage()
			rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: url})
			pipelinetest.MustComplete(t, rep)
			require.Positive(t, rep.Total, "%s has datasets", name)
			ds, err := h.Store.DatasetList(t.Context(), &store.DatasetListParams{SourceID: rep.SourceID})
			require.NoError(t, err)
			require.Len(t, ds, rep.Added)
			for i, d := range ds {
				var dcat struct {
					Title string `json:"title"`
				}
				require.NoError(t, json.Unmarshal(d.DCAT, &dcat))
				require.NotEmpty(t, dcat.Title, d.Identifier)
				if i > 0 {
					continue
				}
				// A search for the first dataset's title finds it.
				res := h.Search(t, search.Query{Text: dcat.Title, PerPage: 100})
				found := false
				for _, hit := range res.Hits {
					found = found || hit.ID == d.ID
				}
				require.True(t, found, "searching %q finds %s: %+v", dcat.Title, d.Identifier, res.Hits)
			}
		})
	}
}
