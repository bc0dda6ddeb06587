package dcatap

import (
	"runtime"
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
	for name, doc := range docs {
		mem := parseString(t, doc)
		for _, threshold := range []int{0, 3} {
			spillAndCompare(t, name, mem, threshold)
		}
	}
}
