package rdf_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// growCatalog is an N-Triples catalog of the datasets <http://grow.test/g0>, g1 and g2, where
// g0 has a distribution with extra literals (0: none).
func growCatalog(extra int) []byte {
	const (
		typ  = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
		dcat = "http://www.w3.org/ns/dcat#"
		dct  = "http://purl.org/dc/terms/"
	)
	var b bytes.Buffer
	cat := "<http://grow.test/catalog>"
	fmt.Fprintf(&b, "%s %s <%sCatalog> .\n", cat, typ, dcat)
	for i := range 3 {
		d := fmt.Sprintf("<http://grow.test/g%d>", i)
		fmt.Fprintf(&b, "%s <%sdataset> %s .\n", cat, dcat, d)
		fmt.Fprintf(&b, "%s %s <%sDataset> .\n", d, typ, dcat)
		fmt.Fprintf(&b, "%s <%stitle> \"Dataset %d\"@en .\n", d, dct, i)
	}
	if extra > 0 {
		dist := "<http://grow.test/g0/distribution>"
		fmt.Fprintf(&b, "<http://grow.test/g0> <%sdistribution> %s .\n", dcat, dist)
		fmt.Fprintf(&b, "%s %s <%sDistribution> .\n", dist, typ, dcat)
		for k := range extra {
			fmt.Fprintf(&b, "%s <%skeyword> \"k%d\" .\n", dist, dcat, k)
		}
	}
	return b.Bytes()
}

// Issue 25 S5: a live dataset whose graph grows past the record triple cap (100,000) is an
// error row with its own IRI as identifier, and stays live: it is not deleted.
func TestRDFDatasetOverTripleCapIsKept(t *testing.T) {
	t.Parallel()
	h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
	const url = "http://grow.test/catalog.nt"
	site.Serve(url, "application/n-triples", growCatalog(0))
	first := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, Options: noSHACL})
	pipelinetest.MustComplete(t, first)
	require.Equal(t, 3, first.Added)
	live := h.LiveIdentifiers(t, first.SourceID)

	site.Serve(url, "application/n-triples", growCatalog(101_000))
	second := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, Options: noSHACL})
	pipelinetest.MustComplete(t, second)
	require.Equal(t, 1, second.Errored, "g0 is an error row")
	require.Equal(t, 2, second.Unchanged, "g1 and g2")
	require.Zero(t, second.Deleted, "g0 is not deleted")
	require.Equal(t, live, h.LiveIdentifiers(t, first.SourceID))
	errs, _, err := h.Store.RecordErrorList(t.Context(), &store.RecordErrorListParams{JobID: second.JobID})
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Equal(t, "http://grow.test/g0", errs[0].Identifier)
	require.Equal(t, "RecordTooLarge", errs[0].Type)
	require.Contains(t, errs[0].Message, "more than 100000 triples, the record triple cap")
}

// hydraPage is a Turtle page of the catalog <http://pages.test/catalog>: its datasets (IRIs
// relative to the page), each with a blank-node distribution and a title padded to pad bytes,
// and a hydra:PartialCollectionView with next ("" for none) and totalItems (negative: none).
func hydraPage(self, next string, total, pad int, datasets ...string) []byte {
	var b bytes.Buffer
	b.WriteString("@prefix hydra: <http://www.w3.org/ns/hydra/core#> .\n@prefix dcat: <http://www.w3.org/ns/dcat#> .\n" +
		"@prefix dct: <http://purl.org/dc/terms/> .\n<http://pages.test/catalog> a dcat:Catalog .\n")
	for _, d := range datasets {
		fmt.Fprintf(&b, "<http://pages.test/catalog> dcat:dataset <%s> .\n", d)
		fmt.Fprintf(&b, "<%s> a dcat:Dataset ; dct:title \"%s %s\" ; dcat:distribution [ a dcat:Distribution ] .\n",
			d, d, strings.Repeat("x", pad))
	}
	fmt.Fprintf(&b, "<%s> a hydra:PartialCollectionView", self)
	if next != "" {
		fmt.Fprintf(&b, " ; hydra:next <%s>", next)
	}
	if total >= 0 {
		fmt.Fprintf(&b, " ; hydra:totalItems %d", total)
	}
	b.WriteString(" .\n")
	return b.Bytes()
}

// noSHACL is the options of a source validated by no SHACL profile.
var noSHACL = map[string]string{"shacl_profile": "none"}

// pagedFirstHarvest harvests the two-page catalog of datasets d1 and d2 at
// http://pages.test/catalog without SHACL, which must complete, and returns its live identifiers.
func pagedFirstHarvest(t *testing.T, h *pipelinetest.Harness, site *pipelinetest.Site) (pipelinetest.Report, []string) {
	t.Helper()
	const p1, p2 = "http://pages.test/catalog", "http://pages.test/catalog?page=2"
	site.Serve(p1, "text/turtle", hydraPage(p1, p2, 2, 0, "http://pages.test/d1"))
	site.Serve(p2, "text/turtle", hydraPage(p2, "", 2, 0, "http://pages.test/d2"))
	first := h.HarvestRDF(t, site, pipelinetest.Source{URL: p1, Options: noSHACL})
	pipelinetest.MustComplete(t, first)
	require.Equal(t, 2, first.Added)
	return first, h.LiveIdentifiers(t, first.SourceID)
}

// mustFailKeeping checks a job failed with one job error holding each of parts, and that the
// source's live datasets are still live.
func mustFailKeeping(t *testing.T, h *pipelinetest.Harness, rep pipelinetest.Report, live []string, parts ...string) {
	t.Helper()
	require.Equal(t, string(harvest.JobError), rep.Status, "job errors: %v", rep.JobErrors)
	require.Len(t, rep.JobErrors, 1)
	for _, p := range parts {
		require.Contains(t, rep.JobErrors[0], p)
	}
	require.Zero(t, rep.Total, "nothing listed")
	require.Equal(t, live, h.LiveIdentifiers(t, rep.SourceID), "nothing deleted")
}

// Issue 25 D14: the pages of a paged source together are capped at --fetch-max-bytes, as one
// document is; the page that passes it is a job error naming it, and is not read to its end.
func TestRDFPagedSourceBytesCap(t *testing.T) {
	t.Parallel()
	h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
	h.Config.Fetch.MaxBytes = 3000
	first, live := pagedFirstHarvest(t, h, site)

	const p1, p2, p3 = "http://pages.test/catalog", "http://pages.test/catalog?page=2", "http://pages.test/catalog?page=3"
	for p, body := range map[string][]byte{p1: hydraPage(p1, p2, 3, 900, "http://pages.test/d1"),
		p2: hydraPage(p2, p3, 3, 900, "http://pages.test/d2"), p3: hydraPage(p3, "", 3, 900, "http://pages.test/d3")} {
		require.Less(t, len(body), 1500, "each page is under the cap")
		site.Serve(p, "text/turtle", body)
	}
	rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: p1, Options: noSHACL})
	require.Equal(t, first.SourceID, rep.SourceID)
	mustFailKeeping(t, h, rep, live, "page 3 ("+p3+")", "past 3000 bytes together")
}

// Issue 25 D23: a Hydra collection whose pages hold fewer or more datasets than its
// hydra:totalItems is a job error naming the page that declared it; nothing is deleted.
func TestRDFHydraTotalItems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		total    int
		datasets []string
		how      string
	}{
		{"short", 3, []string{"http://pages.test/d2"}, "the listing is short"},
		{"long", 2, []string{"http://pages.test/d2", "http://pages.test/d3"}, "longer than declared"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
			_, live := pagedFirstHarvest(t, h, site)
			const p1, p2 = "http://pages.test/catalog", "http://pages.test/catalog?page=2"
			site.Serve(p1, "text/turtle", hydraPage(p1, p2, tc.total, 0, "http://pages.test/d1"))
			site.Serve(p2, "text/turtle", hydraPage(p2, "", tc.total, 0, tc.datasets...))
			rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: p1, JobType: harvest.JobForceHarvest, Options: map[string]string{"shacl_profile": "none"}})
			mustFailKeeping(t, h, rep, live, "page "+p2+" declares hydra:totalItems "+fmt.Sprint(tc.total), tc.how)
		})
	}
}

// Issue 25, a Hydra loop through ever new URLs (page=2, page=3, …) whose pages repeat the same
// datasets (their blank nodes relabelled by each parse) stops at the first repeat, naming it.
func TestRDFHydraRepeatedPage(t *testing.T) {
	t.Parallel()
	h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
	_, live := pagedFirstHarvest(t, h, site)
	const p1, p2, p3 = "http://pages.test/catalog", "http://pages.test/catalog?page=2", "http://pages.test/catalog?page=3"
	site.Serve(p1, "text/turtle", hydraPage(p1, p2, -1, 0, "http://pages.test/d1", "http://pages.test/d2"))
	site.Serve(p2, "text/turtle", hydraPage(p2, p3, -1, 0, "http://pages.test/d1", "http://pages.test/d2"))
	site.Serve(p3, "text/turtle", hydraPage(p3, "", -1, 0, "http://pages.test/d3"))
	rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: p1, Options: noSHACL})
	mustFailKeeping(t, h, rep, live, "page 2 ("+p2+") repeats the content of "+p1, "paging loop")
	require.Zero(t, site.Hits(p3), "no page after the repeat is read")
}

// Issue 25 item 28: a file source's relative IRIs resolve against its file: URL, its next pages
// are files of its folder, and a next page elsewhere (another host, a parent folder) is a job
// error naming the page.
func TestRDFFileSourcePages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	page := func(next string, dataset string) []byte {
		return []byte("@prefix hydra: <http://www.w3.org/ns/hydra/core#> .\n@prefix dcat: <http://www.w3.org/ns/dcat#> .\n" +
			"@prefix dct: <http://purl.org/dc/terms/> .\n<catalog> a dcat:Catalog ; dcat:dataset <" + dataset + "> .\n<" +
			dataset + "> a dcat:Dataset ; dct:title \"" + dataset + "\" .\n<> a hydra:PartialCollectionView ; hydra:next <" + next + "> .\n")
	}
	write := func(name string, body []byte) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, body, 0o644))
		return path
	}
	first := write("sub/catalog.ttl", page("page2.ttl", "d/1"))
	write("sub/page2.ttl", []byte("<d/2> a <http://www.w3.org/ns/dcat#Dataset> ; <http://purl.org/dc/terms/title> \"d/2\" ."))
	h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
	src := pipelinetest.Source{URL: first, Options: noSHACL}
	rep := h.HarvestRDF(t, site, src)
	pipelinetest.MustComplete(t, rep)
	base := "file://" + filepath.ToSlash(dir) + "/sub/"
	live := h.LiveIdentifiers(t, rep.SourceID)
	require.Equal(t, []string{base + "d/1", base + "d/2"}, live)

	for _, next := range []string{"http://elsewhere.test/page2.ttl", "../outside.ttl", "file:///etc/passwd"} {
		write("outside.ttl", page("", "d/3"))
		write("sub/catalog.ttl", page(next, "d/1"))
		rep := h.HarvestRDF(t, site, src)
		mustFailKeeping(t, h, rep, live, "read "+base+"catalog.ttl: its next page", "not a file in the source file's folder")
	}
	require.Zero(t, site.TotalHits(), "no page was fetched")
}

// Issue 25 D7: a next page URL over 8 KiB is a job error that names the page, not the URL
// whole; nothing is deleted.
func TestRDFHydraLongNextPage(t *testing.T) {
	t.Parallel()
	h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
	_, live := pagedFirstHarvest(t, h, site)
	const p1 = "http://pages.test/catalog"
	long := p1 + "?page=" + strings.Repeat("9", 100_000)
	site.Serve(p1, "text/turtle", hydraPage(p1, long, -1, 0, "http://pages.test/d1"))
	rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: p1, Options: noSHACL})
	mustFailKeeping(t, h, rep, live, "read "+p1+": its next page is 100031 bytes long, over the 8192-byte cap")
	require.Less(t, len(rep.JobErrors[0]), 500)
}

// Issue 25: a Hydra collection of more pages than --max-rdf-pages is a job error naming the
// first page past the cap, which is not read; nothing is deleted.
func TestRDFHydraPageCap(t *testing.T) {
	t.Parallel()
	h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
	h.Config.MaxRDFPages = 2
	_, live := pagedFirstHarvest(t, h, site)
	const p1, p2, p3 = "http://pages.test/catalog", "http://pages.test/catalog?page=2", "http://pages.test/catalog?page=3"
	site.Serve(p1, "text/turtle", hydraPage(p1, p2, -1, 0, "http://pages.test/d1"))
	site.Serve(p2, "text/turtle", hydraPage(p2, p3, -1, 0, "http://pages.test/d2"))
	site.Serve(p3, "text/turtle", hydraPage(p3, "", -1, 0, "http://pages.test/d3"))
	rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: p1, Options: noSHACL})
	mustFailKeeping(t, h, rep, live, "page 3 ("+p3+") is one more than the page cap of 2 (--max-rdf-pages)")
	require.Zero(t, site.Hits(p3))
}

// Issue 25: a page of more than 1,000 Hydra paging triples is a job error naming it, not held.
func TestRDFHydraPagingTriplesCap(t *testing.T) {
	t.Parallel()
	h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
	const p1 = "http://pages.test/catalog"
	body := hydraPage(p1, "", -1, 0, "http://pages.test/d1")
	for i := range 1001 {
		body = fmt.Appendf(body, "<%s> <http://www.w3.org/ns/hydra/core#next> <%s?page=%d> .\n", p1, p1, i)
	}
	site.Serve(p1, "text/turtle", body)
	rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: p1, Options: noSHACL})
	mustFailKeeping(t, h, rep, nil, "parse "+p1+" as text/turtle: ", "more than 1000 Hydra paging triples")
}
