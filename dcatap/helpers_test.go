package dcatap

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/rdf"
)

// parseCorpus parses a corpus file (its syntax from its extension) into a memory graph.
func parseCorpus(t testing.TB, name string) *rdf.MemGraph {
	t.Helper()
	f, err := os.Open(corpustest.Path(t, "dcatap/"+name))
	require.NoError(t, err)
	defer f.Close()
	format, err := rdf.FormatFor("", "", name)
	require.NoError(t, err)
	g := rdf.NewMemGraph()
	require.NoError(t, rdf.ParseGraph(f, format, "http://example.com/", g), name)
	return g
}

// parseString parses Turtle text into a memory graph.
func parseString(t *testing.T, ttl string) *rdf.MemGraph {
	t.Helper()
	g := rdf.NewMemGraph()
	require.NoError(t, rdf.ParseGraph(strings.NewReader(ttl), rdf.Turtle, "http://example.com/", g))
	return g
}

func triplesOf(t *testing.T, g rdf.Graph) []rdf.Triple {
	t.Helper()
	var ts []rdf.Triple
	require.NoError(t, g.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error {
		ts = append(ts, tr)
		return nil
	}))
	return ts
}

// splitAll runs Split and returns the resources by "kind iri" ("kind !label" for problems).
func splitAll(t *testing.T, g rdf.Graph) (map[string]*Resource, []*Resource) {
	t.Helper()
	byKey := map[string]*Resource{}
	var order []*Resource
	require.NoError(t, Split(g, func(r *Resource) error {
		key := string(r.Kind) + " " + r.IRI
		if r.Problem != "" {
			key = string(r.Kind) + " !" + r.Label
		}
		require.NotContains(t, byKey, key)
		byKey[key] = r
		order = append(order, r)
		return nil
	}))
	return byKey, order
}

func hashOf(t *testing.T, ts []rdf.Triple) string {
	t.Helper()
	_, h, err := Canonical(ts)
	require.NoError(t, err)
	return h
}

// relabel returns ts with every blank label replaced by prefix+its position of first
// appearance in reverse order, and the triples reversed: another serialization of one graph.
func relabel(ts []rdf.Triple, prefix string) []rdf.Triple {
	names := map[string]string{}
	term := func(x rdf.Term) rdf.Term {
		if !x.IsBlank() {
			return x
		}
		n, ok := names[x.Value]
		if !ok {
			n = prefix + strings.Repeat("x", len(names)+1)
			names[x.Value] = n
		}
		return rdf.Blank(n)
	}
	out := make([]rdf.Triple, len(ts))
	for i, tr := range ts {
		out[len(ts)-1-i] = rdf.Triple{S: term(tr.S), P: tr.P, O: term(tr.O)}
	}
	return out
}

func ntriples(ts []rdf.Triple) string {
	var b strings.Builder
	for _, tr := range ts {
		b.WriteString(tr.NTriples())
		b.WriteByte('\n')
	}
	return b.String()
}
