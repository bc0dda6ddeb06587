package dcatap

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/rdf"
)

const (
	fdkCatalog0 = "https://testdirektoratet.no/model/dataset-catalog/0"
	fdkDataset0 = "https://testdirektoratet.no/model/dataset/0"
)

// FDK's baseline: one catalog, dataset/0 with its distribution and blank nodes, a blank-node
// dataset in the catalog and a blank-node catalog: both are problems, not records.
func TestSplitFDKHarvestResponse0(t *testing.T) {
	byKey, order := splitAll(t, parseCorpus(t, "fdk-harvest-response-0.ttl"))
	require.Len(t, order, 4)
	assert.Equal(t, []string{"catalog " + fdkCatalog0, "dataset " + fdkDataset0, "dataset !Is filtered", "catalog !Is filtered"},
		[]string{keyOf(order[0]), keyOf(order[1]), keyOf(order[2]), keyOf(order[3])}, "order: catalogs, records, problems")

	cat := byKey["catalog "+fdkCatalog0]
	assert.Equal(t, []string{fdkDataset0}, cat.Datasets)
	for _, tr := range cat.Triples {
		assert.False(t, tr.O.IsBlank() || strings.Contains(tr.O.Value, GenidPath),
			"the link to the blank-node dataset is dropped, as FDK does: %s", tr.NTriples())
		assert.Equal(t, fdkCatalog0, tr.S.Value, "the catalog's graph is its own triples, not its datasets'")
	}

	ds := byKey["dataset "+fdkDataset0]
	assert.Equal(t, []string{fdkCatalog0}, ds.Catalogs)
	subjects := map[string]int{}
	for _, tr := range ds.Triples {
		require.False(t, tr.S.IsBlank() || tr.O.IsBlank(), "skolemized: %s", tr.NTriples())
		subjects[tr.S.Value]++
	}
	assert.Equal(t, 16, subjects[fdkDataset0])
	assert.Equal(t, 6, subjects["https://testdirektoratet.no/model/distribution/0"], "the distribution is in the closure")
	genids := 0
	for s := range subjects {
		if strings.HasPrefix(s, genidBase(fdkDataset0)+GenidPath) {
			genids++
		}
	}
	assert.Equal(t, 4, genids, "contactPoint, temporal, accessService and its endpointDescription, owned by the dataset")

	prob := byKey["dataset !Is filtered"]
	assert.Empty(t, prob.IRI)
	assert.Nil(t, prob.Triples)
	assert.Equal(t, []string{fdkCatalog0}, prob.Catalogs)
	assert.Contains(t, prob.Problem, `"Is filtered"`)
	assert.Contains(t, prob.Problem, fdkCatalog0)
	assert.Contains(t, byKey["catalog !Is filtered"].Problem, "catalog without an IRI")
}

func keyOf(r *Resource) string {
	if r.Problem != "" {
		return string(r.Kind) + " !" + r.Label
	}
	return string(r.Kind) + " " + r.IRI
}

// What FDK stores for the baseline (blank nodes as FDK skolem IRIs, CatalogRecords added) has
// the same dataset/0 graph as our split once FDK's skolem IRIs are blank nodes again: our
// closure is FDK's.
func TestSplitMatchesFDKStoredDataset(t *testing.T) {
	ours, _ := splitAll(t, parseCorpus(t, "fdk-harvest-response-0.ttl"))

	stored := rdf.NewMemGraph()
	for _, tr := range triplesOf(t, parseCorpus(t, "fdk-catalog-0-stored-skolemized-with-records.ttl")) {
		unskolem := func(x rdf.Term) rdf.Term {
			if x.IsIRI() && strings.Contains(x.Value, "/.well-known/skolem/") {
				return rdf.Blank(x.Value[strings.LastIndex(x.Value, "/")+1:])
			}
			return x
		}
		require.NoError(t, stored.Add(rdf.Triple{S: unskolem(tr.S), P: tr.P, O: unskolem(tr.O)}))
	}
	theirs, _ := splitAll(t, stored)
	assert.Equal(t, ntriples(ours["dataset "+fdkDataset0].Triples), ntriples(theirs["dataset "+fdkDataset0].Triples))
	assert.Equal(t, ntriples(ours["catalog "+fdkCatalog0].Triples), ntriples(theirs["catalog "+fdkCatalog0].Triples),
		"FDK's stored catalog (CatalogRecords are reached from no catalog) is ours")
}

// catalog-diff changes the catalog's title and drops its blank-node dataset: catalog/0 changes.
// It also turns distribution/0's dcatapi:accessService from a blank node into the relative IRI
// <92b5e4f7-…>, and distribution/0 is in dataset/0's closure (FDK's rule, and FDK's stored graph:
// the accessService is skolemized under dataset/0), so dataset/0's graph changes there and only
// there: its own triples, contact point and temporal are the baseline's.
func TestSplitFDKCatalogDiff(t *testing.T) {
	base, _ := splitAll(t, parseCorpus(t, "fdk-harvest-response-0.ttl"))
	diff, _ := splitAll(t, parseCorpus(t, "fdk-harvest-response-0-catalog-diff.ttl"))

	assert.NotEqual(t, hashOf(t, base["catalog "+fdkCatalog0].Triples), hashOf(t, diff["catalog "+fdkCatalog0].Triples),
		"catalog/0 changed")
	assert.NotContains(t, diff, "dataset !Is filtered")

	b, d := base["dataset "+fdkDataset0].Triples, diff["dataset "+fdkDataset0].Triples
	onlyB, onlyD := difference(b, d), difference(d, b)
	for _, tr := range append(onlyB, onlyD...) {
		about := tr.S.Value
		assert.True(t, about == "https://testdirektoratet.no/model/distribution/0" && tr.P.Value == "http://dcat.no/dcatapi/accessService" ||
			strings.HasSuffix(about, "92b5e4f7-dbbd-482c-b242-990a3628d395") ||
			strings.HasPrefix(about, genidBase(fdkDataset0)+GenidPath),
			"dataset/0 differs only in the accessService: %s", tr.NTriples())
	}
	assert.Len(t, onlyB, 4, "accessService link + the blank service's 3 triples")
	assert.Len(t, onlyD, 4, "accessService link + the IRI service's 3 triples")

	// Without the distribution's change, dataset/0 is unchanged: the catalog change alone does
	// not touch it.
	g := parseCorpus(t, "fdk-harvest-response-0.ttl")
	g2 := rdf.NewMemGraph()
	for _, tr := range triplesOf(t, g) {
		if tr.S.Value == fdkCatalog0 && tr.P.Value == DCTTitle {
			tr.O = rdf.Literal("Datasettkatalog", "", "nb")
		}
		require.NoError(t, g2.Add(tr))
	}
	cat2, _ := splitAll(t, g2)
	assert.Equal(t, hashOf(t, b), hashOf(t, cat2["dataset "+fdkDataset0].Triples), "dataset/0 unchanged")
	assert.NotEqual(t, hashOf(t, base["catalog "+fdkCatalog0].Triples), hashOf(t, cat2["catalog "+fdkCatalog0].Triples))
}

func difference(a, b []rdf.Triple) []rdf.Triple {
	in := map[rdf.Triple]bool{}
	for _, tr := range b {
		in[tr] = true
	}
	var out []rdf.Triple
	for _, tr := range a {
		if !in[tr] {
			out = append(out, tr)
		}
	}
	return out
}

func TestSplitOldDatasetRemoved(t *testing.T) {
	byKey, order := splitAll(t, parseCorpus(t, "fdk-harvest-response-0-old-dataset-removed.ttl"))
	require.Len(t, order, 2)
	assert.Equal(t, []string{"https://testdirektoratet.no/model/dataset/new"}, byKey["catalog "+fdkCatalog0].Datasets)
	assert.Contains(t, byKey, "dataset https://testdirektoratet.no/model/dataset/new")
}

const seriesTTL = `
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix ex: <http://ex.org/> .
ex:cat a dcat:Catalog ; dct:title "C" ; dcat:dataset ex:series, ex:listed ;
    dct:publisher ex:org .
ex:org a <http://xmlns.com/foaf/0.1/Agent> ; dct:title "Org" .
ex:series a dcat:DatasetSeries ; dct:title "S" ; dct:publisher ex:org .
ex:m1 a dcat:Dataset ; dct:title "M1" ; dcat:inSeries ex:series ; dct:isPartOf ex:cat ;
    dcat:distribution ex:dist ; dct:relation ex:listed .
ex:m2 dct:title "M2 (untyped member)" ; dcat:inSeries ex:series .
ex:dist a dcat:Distribution ; dcat:accessURL <http://ex.org/data.csv> ; dct:relation ex:dist .
ex:listed a dcat:Dataset ; dct:title "L" ; dct:relation ex:m1 .
ex:orphan a dcat:Dataset ; dct:title "O" .
dcat:Dataset <http://www.w3.org/2000/01/rdf-schema#label> "Dataset class" .
`

func TestSplitSeriesAndStops(t *testing.T) {
	byKey, order := splitAll(t, parseString(t, seriesTTL))
	var keys []string
	for _, r := range order {
		keys = append(keys, keyOf(r))
	}
	assert.Equal(t, []string{
		"catalog http://ex.org/cat",
		"dataset http://ex.org/listed", "dataset http://ex.org/m1", "dataset http://ex.org/m2",
		"dataset http://ex.org/orphan", "series http://ex.org/series",
	}, keys)

	series := byKey["series http://ex.org/series"]
	assert.Contains(t, ntriples(series.Triples), "<http://ex.org/m1> <http://www.w3.org/ns/dcat#inSeries> <http://ex.org/series> .")
	assert.Contains(t, ntriples(series.Triples), "<http://ex.org/m2> <http://www.w3.org/ns/dcat#inSeries> <http://ex.org/series> .")
	assert.NotContains(t, ntriples(series.Triples), `"M1"`, "members' content is their own record's")
	assert.Contains(t, ntriples(series.Triples), `"Org"`, "the publisher is in the closure")
	assert.Equal(t, []string{"http://ex.org/cat"}, series.Catalogs)

	m1 := byKey["dataset http://ex.org/m1"]
	assert.Equal(t, []string{"http://ex.org/cat"}, m1.Catalogs, "a member is in its series' catalogs")
	nt := ntriples(m1.Triples)
	assert.Contains(t, nt, "<http://ex.org/data.csv>", "distribution in the closure (its self-loop is fine)")
	assert.NotContains(t, nt, `"S"`, "stops at the series")
	assert.NotContains(t, nt, `"L"`, "stops at other datasets")
	assert.NotContains(t, nt, `"C"`, "stops at catalogs")
	assert.NotContains(t, nt, "Dataset class", "does not follow rdf:type")
	assert.Equal(t, []string{"http://ex.org/cat"}, byKey["dataset http://ex.org/m2"].Catalogs)
	assert.Empty(t, byKey["dataset http://ex.org/orphan"].Catalogs, "a dataset in no catalog is still a record")

	cat := byKey["catalog http://ex.org/cat"]
	assert.Equal(t, []string{"http://ex.org/listed", "http://ex.org/series"}, cat.Datasets)
	assert.Contains(t, ntriples(cat.Triples), `"Org"`)
	assert.NotContains(t, ntriples(cat.Triples), `"L"`)
}

func TestSplitBlankDatasetOutsideCatalogs(t *testing.T) {
	byKey, order := splitAll(t, parseString(t, `
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
[] a dcat:Dataset ; dct:title "b", "a" .
[] a dcat:DatasetSeries .
`))
	require.Len(t, order, 2)
	assert.Equal(t, "dataset !a", keyOf(order[1]), "problems sorted by label; the least title names it")
	assert.Contains(t, byKey["series !"].Problem, "dataset series without an IRI")
	assert.Empty(t, byKey["dataset !a"].Catalogs)
}

func TestSplitStopsOnCallbackError(t *testing.T) {
	calls := 0
	err := Split(parseString(t, seriesTTL), func(*Resource) error {
		calls++
		return assert.AnError
	})
	assert.ErrorIs(t, err, assert.AnError)
	assert.Equal(t, 1, calls)
}

// A graph whose Match fails: Split returns the error wrapped.
type failingGraph struct{ *rdf.MemGraph }

func (failingGraph) Match(_, _, _ rdf.Term, _ func(rdf.Triple) error) error { return assert.AnError }

func TestSplitGraphError(t *testing.T) {
	err := Split(failingGraph{rdf.NewMemGraph()}, func(*Resource) error { return nil })
	assert.ErrorIs(t, err, assert.AnError)
	_, err = GraphHash(failingGraph{rdf.NewMemGraph()})
	assert.ErrorIs(t, err, assert.AnError)
}

func TestSplitBlankMemberAndBlankCatalog(t *testing.T) {
	byKey, _ := splitAll(t, parseString(t, `
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
<http://ex.org/cat> a dcat:Catalog ; dcat:dataset <http://ex.org/s> .
<http://ex.org/s> a dcat:DatasetSeries .
[] dct:title "member" ; dcat:inSeries <http://ex.org/s> .
[] a dcat:Catalog ; dct:title "anon" ; dcat:dataset [ a dcat:Dataset ; dct:title "in anon" ], <http://ex.org/d> .
<http://ex.org/d> a dcat:Dataset .
`))
	m := byKey["dataset !member"]
	require.NotNil(t, m)
	assert.Equal(t, []string{"http://ex.org/cat"}, m.Catalogs, "a blank member is in its series' catalog")
	assert.Contains(t, m.Problem, "<http://ex.org/cat>")
	assert.Contains(t, byKey["dataset !in anon"].Problem, "in a catalog without an IRI")
	assert.Empty(t, byKey["dataset http://ex.org/d"].Catalogs, "a blank catalog lists nothing")
	assert.Contains(t, byKey, "catalog !anon")
	assert.Contains(t, ntriples(byKey["series http://ex.org/s"].Triples), GenidPath+"", "the blank member's link, skolemized")
}

// nestGuard fails a Match called from inside another Match's callback: Split and GraphHash
// promise not to, so that a disk-backed Graph need not support nested cursors.
type nestGuard struct {
	*rdf.MemGraph
	depth int
}

func (g *nestGuard) Match(s, p, o rdf.Term, fn func(rdf.Triple) error) error {
	if g.depth > 0 {
		return assert.AnError
	}
	g.depth++
	defer func() { g.depth-- }()
	return g.MemGraph.Match(s, p, o, fn)
}

func TestSplitAndGraphHashNeverNestMatch(t *testing.T) {
	for _, name := range []string{"fdk-harvest-response-0.ttl", "fdk-norway-nested-blank-nodes.ttl", "ckan-demo-catalog-hydra.ttl"} {
		g := &nestGuard{MemGraph: parseCorpus(t, name)}
		require.NoError(t, Split(g, func(*Resource) error { return nil }), name)
		_, err := GraphHash(g)
		require.NoError(t, err, name)
	}
	g := &nestGuard{MemGraph: parseString(t, seriesTTL)}
	require.NoError(t, Split(g, func(*Resource) error { return nil }))
}

// On the graph that spills (past 50 triples, or at the first one), Split and GraphHash give what
// they give in memory, for every corpus DCAT-AP file that parses (Turtle, RDF/XML, JSON-LD,
// N-Triples).
func TestSplitOnSpilledGraph(t *testing.T) {
	entries, err := os.ReadDir(corpustest.Path(t, "dcatap"))
	require.NoError(t, err)
	files := 0
	for _, e := range entries {
		name := e.Name()
		format, err := rdf.FormatFor("", "", name)
		if err != nil || e.IsDir() {
			continue
		}
		f, err := os.Open(corpustest.Path(t, "dcatap/"+name))
		require.NoError(t, err)
		mem := rdf.NewMemGraph()
		err = rdf.ParseGraph(f, format, "http://example.com/", mem)
		f.Close()
		if err != nil || mem.Len() == 0 {
			continue // the corpus's broken files are other tests' business
		}
		for _, threshold := range []int{50, 0} {
			spillAndCompare(t, name, mem, threshold)
		}
		files++
	}
	require.GreaterOrEqual(t, files, 15)
}

// spillAndCompare adds mem's triples to NewGraph(dir, threshold) and checks that Match by each
// triple's patterns, Split and GraphHash answer there as on mem.
func spillAndCompare(t *testing.T, name string, mem *rdf.MemGraph, threshold int) {
	disk, err := rdf.NewGraph(t.TempDir(), threshold)
	require.NoError(t, err)
	t.Cleanup(func() { _ = disk.Close() })
	for _, tr := range triplesOf(t, mem) {
		require.NoError(t, disk.Add(tr))
	}
	require.Equal(t, mem.Len(), disk.Len())
	matches := func(g rdf.Graph, s, p, o rdf.Term) []string {
		var out []string
		require.NoError(t, g.Match(s, p, o, func(tr rdf.Triple) error { out = append(out, tr.NTriples()); return nil }))
		slices.Sort(out)
		return out
	}
	for _, tr := range triplesOf(t, mem) {
		var z rdf.Term
		for _, pat := range [][3]rdf.Term{{tr.S, z, z}, {tr.S, tr.P, z}, {tr.S, tr.P, tr.O}, {z, tr.P, tr.O}, {z, z, tr.O}, {z, tr.P, z}} {
			require.Equal(t, matches(mem, pat[0], pat[1], pat[2]), matches(disk, pat[0], pat[1], pat[2]), "%s %v", name, pat)
		}
	}
	want, wantOrder := splitAll(t, mem)
	got, gotOrder := splitAll(t, disk)
	require.Equal(t, len(want), len(got), name)
	for i, r := range wantOrder {
		k := keyOf(r)
		require.Contains(t, got, k)
		require.Equal(t, k, keyOf(gotOrder[i]), "%s: Split's order", name)
		assert.Equal(t, ntriples(r.Triples), ntriples(got[k].Triples), "%s %s", name, k)
		assert.Equal(t, r.Catalogs, got[k].Catalogs)
		assert.Equal(t, r.Datasets, got[k].Datasets)
		assert.Equal(t, r.Problem, got[k].Problem)
		assert.Equal(t, r.Label, got[k].Label)
		if r.Problem == "" {
			a, errA := r.NQuads()
			b, errB := got[k].NQuads()
			assert.Equal(t, errA, errB)
			assert.Equal(t, string(a), string(b), "%s %s", name, k)
		}
	}
	assert.Equal(t, graphHashOf(t, mem), graphHashOf(t, disk), name)
}

// Every corpus DCAT-AP file that parses splits into these catalogs, records and problems.
func TestSplitEveryCorpusFile(t *testing.T) {
	want := map[string]string{
		"ckan-demo-catalog-hydra.rdf":                      "catalog:1 dataset:100",
		"ckan-demo-catalog-hydra.ttl":                      "catalog:1 dataset:100",
		"ckanext-dcat-catalog-pod.jsonld":                  "catalog:1 dataset:1",
		"ckanext-dcat-catalog-with-at-graph.jsonld":        "catalog:1 dataset:1",
		"ckanext-dcat-dataset-gov-de.rdf":                  "dataset:1",
		"dcat-ap-no-2.0-examples.ttl":                      "catalog:1 dataset:1",
		"dcat-us3-doi-dataset-series.ttl":                  "dataset:2 series:1",
		"fdk-catalog-0-diff-update-fragment-iris.ttl":      "catalog:1 dataset:1",
		"fdk-catalog-0-stored-skolemized-with-records.ttl": "catalog:1 dataset:1",
		"fdk-harvest-response-0-catalog-diff.ttl":          "catalog:1 dataset:1",
		"fdk-harvest-response-0-old-dataset-removed.ttl":   "catalog:1 dataset:1",
		"fdk-harvest-response-0.ttl":                       "catalog-problem:1 catalog:1 dataset-problem:1 dataset:1",
		"fdk-norway-nested-blank-nodes.ttl":                "catalog:1 dataset:1",
		"geonetwork-sig-oreme-catalogrecords.rdf":          "dataset:1",
		"semic-2.1.1-example1.nt":                          "catalog:1 dataset:1",
		"semic-hvd-3.0-ms-catalogue.jsonld":                "dataset:1",
		"semic-hvd-3.0-ms-catalogue.ttl":                   "dataset:1",
		"udata-hydra-partial-collection-page1.jsonld":      "catalog:1 dataset:3",
		"udata-hydra-partial-collection-page2.jsonld":      "catalog:1 dataset:1",
		"udata-paged-collection-page1.jsonld":              "catalog:1 dataset:3",
		"udata-paged-collection-page2.jsonld":              "catalog:1 dataset:1",
	}
	for name, counts := range want {
		_, order := splitAll(t, parseCorpus(t, name))
		n := map[string]int{}
		for _, r := range order {
			k := string(r.Kind)
			if r.Problem != "" {
				k += "-problem"
			} else {
				want, _, err := Canonical(r.Triples)
				require.NoError(t, err, "%s %s", name, r.IRI)
				require.NotNil(t, r.nquads, "%s %s: Split made the N-Quads", name, r.IRI)
				got, err := r.NQuads()
				require.NoError(t, err)
				require.Equal(t, string(want), string(got), "%s %s", name, r.IRI)
			}
			n[k]++
		}
		var got []string
		for k, v := range n {
			got = append(got, fmt.Sprintf("%s:%d", k, v))
		}
		slices.Sort(got)
		assert.Equal(t, counts, strings.Join(got, " "), name)
	}
}

// catalogsTurtle lists records through catalogs and a series in several orders, one resource a
// catalog and a dataset both, and a series member no catalog lists.
const catalogsTurtle = `@prefix dcat: <http://www.w3.org/ns/dcat#> .
<http://ex.org/z> a dcat:Catalog ; dcat:dataset <http://ex.org/d1>, <http://ex.org/d2>, <http://ex.org/s> .
<http://ex.org/a> a dcat:Catalog ; dcat:dataset <http://ex.org/d2>, <http://ex.org/d1>, <http://ex.org/m> .
<http://ex.org/m> a dcat:Catalog ; dcat:dataset <http://ex.org/d1>, <http://ex.org/m> .
<http://ex.org/d1> a dcat:Dataset ; dcat:inSeries <http://ex.org/s> .
<http://ex.org/d2> a dcat:Dataset .
<http://ex.org/s> a dcat:DatasetSeries .
<http://ex.org/m> a dcat:Dataset .
<http://ex.org/d3> dcat:inSeries <http://ex.org/s> .
`

// A record's Catalogs are sorted and distinct however it is listed: by catalogs in any order,
// and by a catalog that lists it both directly and through its series; records with the same
// catalogs, listed in another order, get the same list.
func TestSplitCatalogsSortedDistinct(t *testing.T) {
	byKey, _ := splitAll(t, parseString(t, catalogsTurtle))
	assert.Equal(t, []string{"http://ex.org/a", "http://ex.org/m", "http://ex.org/z"}, byKey["dataset http://ex.org/d1"].Catalogs)
	assert.Equal(t, []string{"http://ex.org/a", "http://ex.org/z"}, byKey["dataset http://ex.org/d2"].Catalogs)
	assert.Equal(t, []string{"http://ex.org/z"}, byKey["dataset http://ex.org/d3"].Catalogs, "a member untyped")
	assert.Equal(t, []string{"http://ex.org/z"}, byKey["series http://ex.org/s"].Catalogs)
}
