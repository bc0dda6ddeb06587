package dcatap

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// TestSplitListingMemory (issue 34 item 5): while Split lists the records of a catalog read
// into the graph spilled to disk, what it and the graph hold grows by under 130 bytes a dataset
// of 11 triples and about 6 distinct terms (the live heap halfway through the listing, of a
// catalog of 120,000 datasets against one of 40,000, so that what does not grow with the
// datasets cancels out). By term ids, with the graph's table of terms by value dropped, 88 were
// measured (the graph's 4 bytes a term's place, the stop set and the records by id), 66 with a
// place kept for one term in 16; keyed by the term's kind and value, with the records' IRIs and
// that table kept, 215 (the 313 MB JSON-LD catalog's listing then held about 90 MiB beside the
// harvest, near the binary's 128 MiB soft limit).
func TestSplitListingMemory(t *testing.T) {
	held := func(n int) int64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		g, err := rdf.NewGraph(t.TempDir(), 0)
		require.NoError(t, err)
		defer g.Close()
		generated(t, g, n)
		var live int64
		records := 0
		require.NoError(t, Split(g, func(r *Resource) error {
			if r.Kind == KindDataset {
				if records++; records == n/2 {
					runtime.GC()
					runtime.ReadMemStats(&ms)
					live = int64(ms.HeapAlloc) - int64(base)
				}
			}
			return nil
		}))
		require.Equal(t, n, records)
		return live
	}
	const small, large = 40_000, 120_000
	a, b := held(small), held(large)
	perDataset := float64(b-a) / (large - small)
	t.Logf("live heap halfway through the listing: %d MiB at %d datasets, %d MiB at %d: %.0f bytes a dataset",
		a>>20, small, b>>20, large, perDataset)
	require.Less(t, perDataset, 130.0, "bytes held a dataset while Split lists a spilled graph")
}

// On the graph spilled to disk, walked by its own term ids, Split gives what it gives in memory
// (where it numbers the terms itself) for series and their members, blank datasets, series,
// members and catalogs, records in several catalogs, a record over the record triple cap
// (named by its title) and a graph with no catalog, no series or no title at all.
func TestSplitSpilledByIDs(t *testing.T) {
	defer func(n int) { maxRecordTriples = n }(maxRecordTriples)
	maxRecordTriples = 6
	docs := map[string]string{"series": seriesTTL, "blank member and catalog": `
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
<http://ex.org/cat> a dcat:Catalog ; dcat:dataset <http://ex.org/s>, <http://ex.org/big> .
<http://ex.org/s> a dcat:DatasetSeries .
[] dct:title "member" ; dcat:inSeries <http://ex.org/s> .
[] a dcat:Catalog ; dct:title "anon" ; dcat:dataset [ a dcat:Dataset ; dct:title "in anon" ], <http://ex.org/d> .
<http://ex.org/d> a dcat:Dataset .
<http://ex.org/big> a dcat:Dataset ; dct:title "big", "a big one" ; dct:subject [ dct:p 1, 2, 3, 4, 5, 6, 7 ] .
[] a dcat:DatasetSeries .
`, "catalogs": catalogsTurtle, "no catalog": `<http://ex.org/d> a <http://www.w3.org/ns/dcat#Dataset> ; <http://ex.org/p> <http://ex.org/o> .
<http://ex.org/o> <http://ex.org/p> "x" .`, "no type": `<http://ex.org/d> <http://ex.org/p> "x" .`}
	docs["chain, cycle and a huge value"] = hostileTurtle(200)
	for name, doc := range docs {
		mem := parseString(t, doc)
		for _, threshold := range []int{0, 3} {
			spillAndCompare(t, name, mem, threshold)
		}
	}
}

// hostileTurtle is a catalog of two datasets whose closures walk a chain of n blank nodes (each
// numbered, so that no two are alike) that ends in a cycle back to its start, and a cycle of
// IRIs through the other dataset (where the closure stops), one dataset with a 200 KB title.
func hostileTurtle(n int) string {
	var b strings.Builder
	b.WriteString(`@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
<http://ex.org/cat> a dcat:Catalog ; dcat:dataset <http://ex.org/d1>, <http://ex.org/d2> .
<http://ex.org/d1> a dcat:Dataset ; dct:subject _:b0 ; dct:relation <http://ex.org/r1> .
<http://ex.org/r1> dct:relation <http://ex.org/r2> .
<http://ex.org/r2> dct:relation <http://ex.org/r1>, <http://ex.org/d2> .
<http://ex.org/d2> a dcat:Dataset ; dct:relation <http://ex.org/d1> ; dct:title "`)
	b.WriteString(strings.Repeat("x", 200<<10))
	b.WriteString("\" .\n")
	for i := range n {
		fmt.Fprintf(&b, "_:b%d <http://ex.org/n> %d ; <http://ex.org/next> _:b%d .\n", i, i, (i+1)%n)
	}
	return b.String()
}

// TestSplitSpilledHostile: on the graph spilled to disk, Split walks a record's chain of 200
// blank nodes that cycles back to its start once each, follows a cycle of IRIs until it meets
// the other dataset (whose link alone stays), and keeps a 200 KB title whole.
func TestSplitSpilledHostile(t *testing.T) {
	mem := parseString(t, hostileTurtle(200))
	disk, err := rdf.NewGraph(t.TempDir(), 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = disk.Close() })
	for _, tr := range triplesOf(t, mem) {
		require.NoError(t, disk.Add(tr))
	}
	byKey, _ := splitAll(t, disk)
	d1 := byKey["dataset http://ex.org/d1"]
	require.NotNil(t, d1)
	next, titles := 0, 0
	for _, tr := range d1.Triples {
		switch tr.P.Value {
		case "http://ex.org/next":
			next++
		case "http://purl.org/dc/terms/title":
			titles++
		}
	}
	require.Equal(t, 200, next, "every link of the chain once, the cycle closed once")
	require.Zero(t, titles, "the closure stops at the other dataset")
	require.Len(t, d1.Triples, 2*200+6) // the chain's numbers; type, subject, relation; r1's, r2's two
	d2 := byKey["dataset http://ex.org/d2"]
	require.NotNil(t, d2)
	found := false
	for _, tr := range d2.Triples {
		found = found || len(tr.O.Value) == 200<<10
	}
	require.True(t, found, "the 200 KB title kept whole")
}
