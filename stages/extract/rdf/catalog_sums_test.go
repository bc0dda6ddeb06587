package rdf

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/rdf"
)

// A catalog's checksum covers its datasets' graphs, as FDK's catalog graph does: it changes when
// only a dataset it lists changes (issue 25 item 30), and not when a dataset of another catalog
// does. Datasets out of Split's order (by IRI) are refused.
func TestCatalogSumsCoverDatasets(t *testing.T) {
	t.Parallel()
	triple := func(s, o string) rdf.Triple {
		return rdf.Triple{S: rdf.IRI(s), P: rdf.IRI("http://purl.org/dc/terms/title"), O: rdf.Literal(o, "", "")}
	}
	sums := func(d1Title string, reversed bool) (map[string]string, error) {
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
			if err := c.add(d); err != nil {
				return nil, err
			}
		}
		out := map[string]string{}
		for _, s := range c.list() {
			out[s.URI] = s.Checksum
		}
		return out, nil
	}
	before, err := sums("D1", false)
	require.NoError(t, err)
	after, err := sums("D1 changed", false)
	require.NoError(t, err)
	require.NotEqual(t, before["http://x.test/c1"], after["http://x.test/c1"], "its dataset changed")
	require.Equal(t, before["http://x.test/c2"], after["http://x.test/c2"])
	_, err = sums("D1", true)
	require.ErrorContains(t, err, "http://x.test/d1 after http://x.test/d2: not in Split's order")
}

// The checksum hashed as the lines come is the SHA-256 of the catalog's hash and its sorted
// lines joined (what it held every line for), also where an IRI is the start of others and
// followed there by a space or a control character (which sort before the line's separator).
func TestCatalogSumsStreamedAsSorted(t *testing.T) {
	t.Parallel()
	const cat = "http://x.test/c"
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", " ", "\x01", "\x1f", "!", "/", "~"}
	for run := range 300 {
		iris := map[string]bool{}
		for range 1 + rng.IntN(40) {
			iri := "http://x.test/d"
			for range rng.IntN(5) {
				iri += alphabet[rng.IntN(len(alphabet))]
			}
			iris[iri] = true
		}
		sorted := slices.Sorted(maps.Keys(iris))
		c := newCatalogSums()
		require.NoError(t, c.add(&dcatap.Resource{Kind: dcatap.KindCatalog, IRI: cat, Problem: "own"}))
		var lines []string
		for _, iri := range sorted {
			problem := fmt.Sprint(rng.IntN(3)) // the hash of a line: here a problem's text
			require.NoError(t, c.add(&dcatap.Resource{Kind: dcatap.KindDataset, IRI: iri, Catalogs: []string{cat}, Problem: problem}))
			lines = append(lines, iri+" problem "+problem)
		}
		slices.Sort(lines)
		want := sha256.Sum256([]byte("problem own\n" + strings.Join(lines, "\n")))
		got := c.list()
		require.Len(t, got, 1)
		require.Equal(t, hex.EncodeToString(want[:]), got[0].Checksum, "run %d: %q", run, sorted)
	}
}
