package dcatap

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// labelsOnly hides a graph's own blank node numbers (rdf.BlankIDMatcher), so that GraphHash
// numbers the labels in a table of its own.
type labelsOnly struct{ rdf.Graph }

// spilledOf returns NewGraph's graph of ts, spilled to disk from the first triple.
func spilledOf(t testing.TB, ts []rdf.Triple) rdf.Graph {
	t.Helper()
	g, err := rdf.NewGraph(t.TempDir(), 0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, g.Close()) })
	for _, tr := range ts {
		require.NoError(t, g.Add(tr))
	}
	return g
}

// TestGraphHashSpilledIDs (issue 34 item 5): on the graph spilled to disk, GraphHash numbers
// the blank nodes by the graph's own numbers (rdf.BlankIDMatcher) where it numbered their
// labels: the fingerprint is the one of the same triples in memory and of the labels, for a
// chain, rings, cycles in a DAG, a graph whose runs of blank subjects come out of the order
// they were numbered in, and the corpus catalogs; with the triples kept and past
// graphHashKeptBytes (each node's triples then matched by its number).
func TestGraphHashSpilledIDs(t *testing.T) {
	p, q := rdf.IRI("http://ex.org/p"), rdf.IRI("http://ex.org/q")
	b := func(i int) rdf.Term { return rdf.Blank(fmt.Sprint("n", i)) }
	// _:n3 is numbered first (the object of an IRI), its run comes after _:n1's and _:n2's.
	outOfOrder := []rdf.Triple{{S: rdf.IRI(owner), P: p, O: b(3)}, {S: b(1), P: p, O: b(3)},
		{S: b(1), P: q, O: rdf.Literal("1", "", "")}, {S: b(2), P: p, O: b(1)}, {S: b(2), P: q, O: b(2)},
		{S: b(3), P: p, O: b(4)}, {S: b(4), P: p, O: b(2)}}
	dag := triplesOf(t, parseString(t, `_:a <http://ex.org/p> _:b, _:c . _:b <http://ex.org/p> _:d . _:c <http://ex.org/q> _:d .
_:d <http://ex.org/p> _:e, _:f . _:e <http://ex.org/v> "x" . _:f <http://ex.org/p> _:g . _:g <http://ex.org/p> _:f, _:e .
<http://ex.org/d> <http://ex.org/r> _:a, _:d . _:h <http://ex.org/p> _:d, _:e .`))
	cases := map[string][]rdf.Triple{
		"chain":             blankChain(2000),
		"ring":              blankRing(300, "b"),
		"rings and a chain": append(append(blankRing(7, "r"), blankRing(11, "s")...), blankChain(50)...),
		"dag with cycles":   dag,
		"out of order":      outOfOrder,
	}
	for _, name := range []string{"fdk-norway-nested-blank-nodes.ttl", "ckan-demo-catalog-hydra.ttl"} {
		cases[name] = triplesOf(t, parseCorpus(t, name))
	}
	defer func(n int) { graphHashKeptBytes = n }(graphHashKeptBytes)
	for name, ts := range cases {
		for _, keptBytes := range []int{128 << 20, 1} {
			graphHashKeptBytes = keptBytes
			want := graphHashOf(t, graphOf(t, ts))
			disk := spilledOf(t, ts)
			require.Equal(t, want, graphHashOf(t, disk), "%s, kept bytes %d: spilled", name, keptBytes)
			require.Equal(t, want, graphHashOf(t, labelsOnly{disk}), "%s, kept bytes %d: labels", name, keptBytes)
			// A triple less is another fingerprint.
			require.NotEqual(t, want, graphHashOf(t, spilledOf(t, ts[1:])), "%s, kept bytes %d: a triple less", name, keptBytes)
		}
	}
}

// TestGraphHashSpilledChainMemory (issue 34 item 5): on the spilled graph of a chain of
// 1,000,000 blank nodes, GraphHash holds no table of their labels (about 20 bytes and the
// label's bytes a node) nor a node number for each kept edge: its live heap peaks well under
// the labels' path on the same graph.
func TestGraphHashSpilledChainMemory(t *testing.T) {
	const n = 1_000_000
	g := spilledOf(t, blankChain(n))
	require.Equal(t, n+1, g.Len())
	// A Match of every triple frees the graph's own term table until the next lookup, as
	// GraphHash's scan does: done first, both runs below start from the same heap.
	require.NoError(t, g.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(rdf.Triple) error { return nil }))
	var ids, labels string
	idPeak := peakLive(func() { ids = graphHashOf(t, g) })
	labelPeak := peakLive(func() { labels = graphHashOf(t, labelsOnly{g}) })
	t.Logf("GraphHash of a spilled %d-node blank chain: peak live heap %d MiB by the graph's numbers, %d MiB by labels",
		n, idPeak>>20, labelPeak>>20)
	require.Equal(t, labels, ids)
	require.Less(t, idPeak+10<<20, labelPeak, "peak live heap by the graph's numbers and by labels")
}
