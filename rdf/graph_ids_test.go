package rdf_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// On the graph spilled to disk, MatchIDs walks what Match walks, in the same order, by
// subject, subject and predicate, object, object and predicate, predicate and everything; and
// with the table of terms by value dropped it walks and names the terms without making the table
// again (issue 34 item 5: dcatap.Split lists a catalog without it). TermID makes it again.
func TestGraphMatchIDs(t *testing.T) {
	g, err := rdf.NewGraph(t.TempDir(), 0)
	require.NoError(t, err)
	defer g.Close()
	p, q := rdf.IRI("http://e.org/p"), rdf.IRI("http://e.org/q")
	s := func(i int) rdf.Term { return rdf.IRI(fmt.Sprintf("http://e.org/s/%d", i)) }
	for i := range 3000 {
		require.NoError(t, g.Add(rdf.Triple{S: s(i), P: p, O: s((i * 7) % 500)}))
		require.NoError(t, g.Add(rdf.Triple{S: s(i), P: q, O: rdf.Literal(fmt.Sprint(i%10), "", "")}))
		require.NoError(t, g.Add(rdf.Triple{S: rdf.Blank(fmt.Sprint("b", i%40)), P: q, O: s(i)}))
	}
	ids, ok := g.(rdf.IDGraph).TermIDs()
	require.True(t, ok)
	id := func(t2 rdf.Term) uint32 {
		if t2.IsZero() {
			return rdf.NoID
		}
		n, ok, err := ids.TermID(t2)
		require.NoError(t, err)
		require.True(t, ok, "%v", t2)
		return n
	}
	patterns := [][3]rdf.Term{{s(5), {}, {}}, {s(5), q, {}}, {s(5), p, s(35)}, {{}, {}, s(35)}, {{}, p, s(35)},
		{{}, q, {}}, {{}, {}, {}}, {rdf.Blank("b3"), {}, {}}, {{}, q, rdf.Literal("3", "", "")}}
	type walk struct{ want, got []rdf.Triple }
	walks := make([]walk, len(patterns))
	patternIDs := make([][3]uint32, len(patterns))
	for i, pt := range patterns {
		require.NoError(t, g.Match(pt[0], pt[1], pt[2], func(tr rdf.Triple) error {
			walks[i].want = append(walks[i].want, tr)
			return nil
		}))
		require.NotEmpty(t, walks[i].want, "%v", pt)
		patternIDs[i] = [3]uint32{id(pt[0]), id(pt[1]), id(pt[2])}
	}
	ids.DropTermIndex()
	require.False(t, rdf.TermIndexHeld(g))
	for i, pt := range patternIDs {
		require.NoError(t, ids.MatchIDs(pt[0], pt[1], pt[2], func(it rdf.IDTriple) error {
			var tr rdf.Triple
			var err error
			if tr.S, err = ids.TermOf(it.S); err == nil {
				if tr.P, err = ids.TermOf(it.P); err == nil {
					tr.O, err = ids.TermOf(it.O)
				}
			}
			walks[i].got = append(walks[i].got, tr)
			return err
		}))
		require.Equal(t, walks[i].want, walks[i].got, "%v", patterns[i])
	}
	require.False(t, rdf.TermIndexHeld(g), "walking by ids needs no table of terms by value")
	_, err = ids.TermOf(1 << 30)
	require.Error(t, err, "an id the graph has not given")
	require.Equal(t, id(s(7)), id(s(7)))
	require.True(t, rdf.TermIndexHeld(g), "TermID makes the table again")
	_, ok, err = ids.TermID(rdf.IRI("http://e.org/none"))
	require.NoError(t, err)
	require.False(t, ok)

	mem, err := rdf.NewGraph(t.TempDir(), 100)
	require.NoError(t, err)
	defer mem.Close()
	require.NoError(t, mem.Add(rdf.Triple{S: s(1), P: p, O: s(2)}))
	_, ok = mem.(rdf.IDGraph).TermIDs()
	require.False(t, ok, "a graph still in memory numbers no terms")
}
