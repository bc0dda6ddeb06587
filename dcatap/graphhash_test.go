package dcatap

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

func graphHashOf(t *testing.T, g rdf.Graph) string {
	t.Helper()
	h, err := GraphHash(g)
	require.NoError(t, err)
	require.Len(t, h, 64)
	return h
}

func graphOf(t *testing.T, ts []rdf.Triple) *rdf.MemGraph {
	t.Helper()
	g := rdf.NewMemGraph()
	for _, tr := range ts {
		require.NoError(t, g.Add(tr))
	}
	return g
}

func TestGraphHash(t *testing.T) {
	for _, name := range []string{"fdk-norway-nested-blank-nodes.ttl", "ckan-demo-catalog-hydra.ttl", "fdk-harvest-response-0.ttl"} {
		t.Run(name, func(t *testing.T) {
			g := parseCorpus(t, name)
			h := graphHashOf(t, g)
			assert.Equal(t, h, graphHashOf(t, parseCorpus(t, name)), "another parse")

			// Re-serialized as N-Triples, relabelled and reversed.
			ts := triplesOf(t, g)
			g2 := rdf.NewMemGraph()
			require.NoError(t, rdf.ParseGraph(strings.NewReader(ntriples(relabel(ts, "q"))), rdf.NTriples, "", g2))
			assert.Equal(t, h, graphHashOf(t, g2), "re-serialized, relabelled, reordered")

			// One literal changed.
			for i, tr := range ts {
				if tr.O.IsLiteral() {
					changed := append([]rdf.Triple(nil), ts...)
					changed[i].O = rdf.Literal(tr.O.Value+" ", tr.O.Datatype, tr.O.Lang)
					assert.NotEqual(t, h, graphHashOf(t, graphOf(t, changed)), "one literal changed")
					break
				}
			}
			// One triple removed.
			assert.NotEqual(t, h, graphHashOf(t, graphOf(t, ts[1:])))
		})
	}
	// A literal deep under blank nodes changes the hash too.
	a := graphHashOf(t, parseString(t, `<http://ex.org/d> <http://ex.org/p> [ <http://ex.org/q> [ <http://ex.org/v> "2019-04-02" ] ] .`))
	b := graphHashOf(t, parseString(t, `<http://ex.org/d> <http://ex.org/p> [ <http://ex.org/q> [ <http://ex.org/v> "2019-02-04" ] ] .`))
	assert.NotEqual(t, a, b)
	// Blank cycles terminate.
	c := graphHashOf(t, parseString(t, `_:a <http://ex.org/p> _:b . _:b <http://ex.org/p> _:a . _:c <http://ex.org/p> _:c .`))
	assert.Equal(t, c, graphHashOf(t, parseString(t, `_:z <http://ex.org/p> _:z . _:y <http://ex.org/p> _:x . _:x <http://ex.org/p> _:y .`)))
	assert.Equal(t, graphHashOf(t, rdf.NewMemGraph()), graphHashOf(t, rdf.NewMemGraph()))
}

// Past the cap on kept triples' bytes, GraphHash looks each blank node's triples up in the graph: the
// same fingerprint.
func TestGraphHashPastKeptTriples(t *testing.T) {
	g := parseCorpus(t, "fdk-norway-nested-blank-nodes.ttl")
	want := graphHashOf(t, g)
	defer func(n int) { graphHashKeptBytes = n }(graphHashKeptBytes)
	graphHashKeptBytes = 1
	assert.Equal(t, want, graphHashOf(t, g))
	// A node's hash is dropped once its last arc from a blank node is hashed, not sooner: nodes
	// with two arcs in, one in a cycle, one from an IRI too.
	dag := parseString(t, `_:a <http://ex.org/p> _:b, _:c . _:b <http://ex.org/p> _:d . _:c <http://ex.org/q> _:d .
_:d <http://ex.org/p> _:e, _:f . _:e <http://ex.org/v> "x" . _:f <http://ex.org/p> _:g . _:g <http://ex.org/p> _:f, _:e .
<http://ex.org/d> <http://ex.org/r> _:a, _:d . _:h <http://ex.org/p> _:d, _:e .`)
	graphHashKeptBytes = 1_000
	want = graphHashOf(t, dag)
	graphHashKeptBytes = 1
	assert.Equal(t, want, graphHashOf(t, dag))
	ring := graphOf(t, blankRing(50, "b"))
	graphHashKeptBytes = 1_000
	want = graphHashOf(t, ring)
	graphHashKeptBytes = 1
	assert.Equal(t, want, graphHashOf(t, ring))
}

// A blank node whose triples come together and have no blank object is hashed as its triples
// pass, and they are summed then (graphHash with leaves: a catalog's distributions keep
// nothing); where a blank subject's triples do not come together GraphHash starts again without
// that: the fingerprint is the same either way, on the spill store (a subject's triples come
// together) as on the graph read in any order.
func TestGraphHashLeaves(t *testing.T) {
	for _, name := range []string{"fdk-norway-nested-blank-nodes.ttl", "ckan-demo-catalog-hydra.ttl", "fdk-harvest-response-0.ttl"} {
		mem := parseCorpus(t, name)
		want, err := graphHash(mem, false)
		require.NoError(t, err)
		disk, err := rdf.NewGraph(t.TempDir(), 0)
		require.NoError(t, err)
		for _, tr := range triplesOf(t, mem) {
			require.NoError(t, disk.Add(tr))
		}
		got, err := graphHash(disk, true)
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
		require.NoError(t, disk.Close())
	}
	p, q := rdf.IRI("http://ex.org/p"), rdf.IRI("http://ex.org/q")
	a, b, d := rdf.Blank("a"), rdf.Blank("b"), rdf.IRI("http://ex.org/d")
	interleaved := []rdf.Triple{{S: a, P: p, O: rdf.Literal("1", "", "")}, {S: b, P: p, O: rdf.Literal("2", "", "")},
		{S: a, P: q, O: d}, {S: d, P: p, O: a}, {S: d, P: p, O: b}}
	_, err := graphHash(graphOf(t, interleaved), true)
	require.ErrorIs(t, err, errNotGrouped)
	grouped := []rdf.Triple{interleaved[0], interleaved[2], interleaved[1], interleaved[3], interleaved[4]}
	sum, err := graphHash(graphOf(t, grouped), true)
	require.NoError(t, err)
	require.Equal(t, graphHashOf(t, graphOf(t, interleaved)), sum)
	without, err := graphHash(graphOf(t, grouped), false)
	require.NoError(t, err)
	require.Equal(t, without, sum)
}
