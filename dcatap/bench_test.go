package dcatap

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// demo.ckan.org's page 1: 100 datasets, 140 distributions, 34 blank-node subjects.
func TestSplitCKANDemo(t *testing.T) {
	byKey, order := splitAll(t, parseCorpus(t, "ckan-demo-catalog-hydra.ttl"))
	datasets, distributions := 0, 0
	for _, r := range order {
		require.Empty(t, r.Problem)
		if r.Kind != KindDataset {
			continue
		}
		datasets++
		assert.NotEmpty(t, r.Catalogs, r.IRI)
		for _, tr := range r.Triples {
			require.False(t, tr.S.IsBlank() || tr.O.IsBlank())
			if tr.P.Value == rdf.RDFType && tr.O.Value == "http://www.w3.org/ns/dcat#Distribution" {
				distributions++
			}
		}
	}
	assert.Equal(t, 100, datasets)
	assert.Equal(t, 140, distributions, "every distribution is in its dataset's record")
	var catalogs int
	for k := range byKey {
		if strings.HasPrefix(k, "catalog ") {
			catalogs++
		}
	}
	assert.Equal(t, 1, catalogs)
}

func BenchmarkSplitAndCanonicalCKANDemo(b *testing.B) {
	g := parseCorpus(b, "ckan-demo-catalog-hydra.ttl")
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		err := Split(g, func(r *Resource) error {
			_, _, err := Canonical(r.Triples)
			n++
			return err
		})
		if err != nil || n != 101 {
			b.Fatal(err, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/101/1000, "µs/resource")
}

// generated returns n datasets of 10 triples each (one blank contact point and one blank
// period each) in one catalog, in g.
func generated(b testing.TB, g rdf.Graph, n int) {
	cat := rdf.IRI("http://ex.org/catalog")
	add := func(tr rdf.Triple) {
		if err := g.Add(tr); err != nil {
			b.Fatal(err)
		}
	}
	add(rdf.Triple{S: cat, P: rdf.IRI(rdf.RDFType), O: rdf.IRI(DCATCatalog)})
	for i := range n {
		d := rdf.IRI(fmt.Sprintf("http://ex.org/dataset/%d", i))
		cp, pt := rdf.Blank(fmt.Sprintf("cp%d", i)), rdf.Blank(fmt.Sprintf("pt%d", i))
		add(rdf.Triple{S: cat, P: rdf.IRI(DCATDatasetProp), O: d})
		for _, tr := range []rdf.Triple{
			{S: d, P: rdf.IRI(rdf.RDFType), O: rdf.IRI(DCATDataset)},
			{S: d, P: rdf.IRI(DCTTitle), O: rdf.Literal(fmt.Sprintf("Dataset %d", i), "", "en")},
			{S: d, P: rdf.IRI("http://www.w3.org/ns/dcat#contactPoint"), O: cp},
			{S: d, P: rdf.IRI("http://purl.org/dc/terms/temporal"), O: pt},
			{S: cp, P: rdf.IRI("http://www.w3.org/2006/vcard/ns#fn"), O: rdf.Literal("Contact", "", "")},
			{S: cp, P: rdf.IRI("http://www.w3.org/2006/vcard/ns#hasEmail"), O: rdf.IRI(fmt.Sprintf("mailto:c%d@ex.org", i%100))},
			{S: pt, P: rdf.IRI("http://www.w3.org/ns/dcat#startDate"), O: rdf.Literal("2019-04-02", "http://www.w3.org/2001/XMLSchema#date", "")},
			{S: pt, P: rdf.IRI("http://www.w3.org/ns/dcat#endDate"), O: rdf.Literal("2020-04-02", "http://www.w3.org/2001/XMLSchema#date", "")},
			{S: d, P: rdf.IRI("http://www.w3.org/ns/dcat#keyword"), O: rdf.Literal("k", "", "")},
			{S: d, P: rdf.IRI("http://purl.org/dc/terms/identifier"), O: rdf.Literal(fmt.Sprint(i), "", "")},
		} {
			add(tr)
		}
	}
}

func BenchmarkGraphHash(b *testing.B) {
	g := rdf.NewMemGraph()
	generated(b, g, 10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := GraphHash(g); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(g.Len()), "ns/triple")
}

// Split, Canonical and GraphHash over 10,000 datasets (110,001 triples) in the graph that
// spills to disk past 10,000 triples: what EXTRACT does per source.
func BenchmarkSplitSpilled(b *testing.B) {
	g, err := rdf.NewGraph(b.TempDir(), 10000)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	generated(b, g, 10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := GraphHash(g); err != nil {
			b.Fatal(err)
		}
		err := Split(g, func(r *Resource) error {
			_, _, err := Canonical(r.Triples)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000/1000, "µs/record")
}

// BenchmarkGraphHashSpilled is GraphHash on the graph spilled to disk (NewGraph's compact
// store, whose blank node numbers it uses): 10,000 generated datasets (110,001 triples, their
// blank nodes leaves) and a chain of 1,000,000 blank nodes.
func BenchmarkGraphHashSpilled(b *testing.B) {
	b.Run("catalog", func(b *testing.B) {
		g, err := rdf.NewGraph(b.TempDir(), 0)
		if err != nil {
			b.Fatal(err)
		}
		defer g.Close()
		generated(b, g, 10000)
		benchmarkGraphHash(b, g)
	})
	b.Run("chain", func(b *testing.B) {
		benchmarkGraphHash(b, spilledOf(b, blankChain(1_000_000)))
	})
}

func benchmarkGraphHash(b *testing.B, g rdf.Graph) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := GraphHash(g); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(g.Len()), "ns/triple")
}
