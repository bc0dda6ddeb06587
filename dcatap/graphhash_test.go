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
	ring := graphOf(t, blankRing(50, "b"))
	graphHashKeptBytes = 1_000
	want = graphHashOf(t, ring)
	graphHashKeptBytes = 1
	assert.Equal(t, want, graphHashOf(t, ring))
}
