package rdf

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/rdf"
)

// A catalog's checksum covers its datasets' graphs, as FDK's catalog graph does: it changes when
// only a dataset it lists changes (issue 25 item 30), and not when a dataset of another catalog
// does; the order Split gives the datasets in does not matter.
func TestCatalogSumsCoverDatasets(t *testing.T) {
	t.Parallel()
	triple := func(s, o string) rdf.Triple {
		return rdf.Triple{S: rdf.IRI(s), P: rdf.IRI("http://purl.org/dc/terms/title"), O: rdf.Literal(o, "", "")}
	}
	sums := func(d1Title string, reversed bool) map[string]string {
		c := newCatalogSums()
		for _, cat := range []string{"http://x.test/c1", "http://x.test/c2"} {
			require.NoError(t, c.add(&dcatap.Resource{Kind: dcatap.KindCatalog, IRI: cat, Triples: []rdf.Triple{triple(cat, "C")}}))
		}
		ds := []*dcatap.Resource{
			{Kind: dcatap.KindDataset, IRI: "http://x.test/d1", Catalogs: []string{"http://x.test/c1"},
				Triples: []rdf.Triple{triple("http://x.test/d1", d1Title)}},
			{Kind: dcatap.KindDataset, IRI: "http://x.test/d2", Catalogs: []string{"http://x.test/c1"},
				Triples: []rdf.Triple{triple("http://x.test/d2", "D2")}},
			{Kind: dcatap.KindDataset, IRI: "http://x.test/d3", Catalogs: []string{"http://x.test/c2"},
				Triples: []rdf.Triple{triple("http://x.test/d3", "D3")}},
			{Kind: dcatap.KindDataset, Problem: "a blank node"},
		}
		if reversed {
			ds[0], ds[1] = ds[1], ds[0]
		}
		for _, d := range ds {
			require.NoError(t, c.add(d))
		}
		out := map[string]string{}
		for _, s := range c.list() {
			out[s.URI] = s.Checksum
		}
		return out
	}
	before, after := sums("D1", false), sums("D1 changed", false)
	require.NotEqual(t, before["http://x.test/c1"], after["http://x.test/c1"], "its dataset changed")
	require.Equal(t, before["http://x.test/c2"], after["http://x.test/c2"])
	require.Equal(t, before, sums("D1", true), "the datasets' order does not matter")
}
