package rdf_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// TestGraphMatchBlankIDs: the spilled graph numbers its blank nodes 0 … n-1 (rdf.BlankIDMatcher),
// one number a node, walking the triples Match walks, by subject too; numbers stay when triples
// are added and new nodes come after; the graph in memory numbers none and walks nothing.
func TestGraphMatchBlankIDs(t *testing.T) {
	t.Run("terms in memory", testGraphMatchBlankIDs)
	t.Run("terms in the file", func(t *testing.T) {
		defer rdf.SetTermArena(4096, 8192)()
		testGraphMatchBlankIDs(t)
	})
}

func testGraphMatchBlankIDs(t *testing.T) {
	g, err := rdf.NewGraph(t.TempDir(), 3)
	require.NoError(t, err)
	defer g.Close()
	ids := g.(rdf.BlankIDMatcher)
	p, q := rdf.IRI("http://e.org/p"), rdf.IRI("http://e.org/q")
	b := func(i int) rdf.Term { return rdf.Blank(fmt.Sprint("b", i)) }
	var ts []rdf.Triple
	for i := range 300 { // blank nodes among IRIs and literals, across many 64-bit words
		ts = append(ts, rdf.Triple{S: rdf.IRI(fmt.Sprint("http://e.org/d", i)), P: p, O: b(i)},
			rdf.Triple{S: b(i), P: q, O: rdf.Literal(fmt.Sprint(i), "", "")},
			rdf.Triple{S: b(i), P: p, O: b((i * 7) % 300)})
	}
	require.NoError(t, g.Add(ts[0]))
	ok, err := ids.MatchBlankIDs(-1, func(rdf.Triple, int32, int32) error { t.Fatal("walked"); return nil })
	require.NoError(t, err)
	require.False(t, ok, "in memory: no numbers")
	for _, tr := range ts[1:] {
		require.NoError(t, g.Add(tr))
	}
	number := checkBlankIDs(t, g, ids, 300)
	// Adding numbers the new node after the others; the old keep theirs.
	require.NoError(t, g.Add(rdf.Triple{S: rdf.Blank("late"), P: p, O: b(5)}))
	again := checkBlankIDs(t, g, ids, 301)
	for label, n := range number {
		require.Equal(t, n, again[label], label)
	}
	require.Equal(t, int32(300), again["late"])
	for k := range 12 { // a new node every 21 terms: in words of the numbers made before
		for i := range 10 {
			x := fmt.Sprint(k, "-", i)
			require.NoError(t, g.Add(rdf.Triple{S: rdf.IRI("http://e.org/x" + x), P: p, O: rdf.Literal(x, "", "")}))
		}
		require.NoError(t, g.Add(rdf.Triple{S: rdf.Blank(fmt.Sprint("later", k)), P: p, O: rdf.Blank("late")}))
		require.Equal(t, int32(301+k), checkBlankIDs(t, g, ids, 302+k)[fmt.Sprint("later", k)])
	}
	stop := errors.New("stop")
	ok, err = ids.MatchBlankIDs(-1, func(rdf.Triple, int32, int32) error { return stop })
	require.True(t, ok)
	require.ErrorIs(t, err, stop)
}

// checkBlankIDs checks g's numbers against its Match and returns each label's number.
func checkBlankIDs(t *testing.T, g rdf.Graph, ids rdf.BlankIDMatcher, nodes int) map[string]int32 {
	t.Helper()
	var want, got []rdf.Triple
	require.NoError(t, g.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error { want = append(want, tr); return nil }))
	number := map[string]int32{}
	seen := map[int32]string{}
	check := func(term rdf.Term, n int32) {
		if !term.IsBlank() {
			require.Equal(t, int32(-1), n, "%v", term)
			return
		}
		if m, ok := number[term.Value]; ok {
			require.Equal(t, m, n, "%v numbered twice", term)
		}
		require.True(t, seen[n] == "" || seen[n] == term.Value, "%d numbers %s and %s", n, seen[n], term.Value)
		number[term.Value], seen[n] = n, term.Value
	}
	ok, err := ids.MatchBlankIDs(-1, func(tr rdf.Triple, s, o int32) error {
		got = append(got, tr)
		check(tr.S, s)
		check(tr.O, o)
		return nil
	})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, want, got, "the triples Match walks, in its order")
	require.Len(t, number, nodes)
	for n := range int32(nodes) {
		require.NotEmpty(t, seen[n], "number %d", n)
		// By subject: the triples Match walks for that node.
		var want, got []rdf.Triple
		require.NoError(t, g.Match(rdf.Blank(seen[n]), rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error { want = append(want, tr); return nil }))
		ok, err := ids.MatchBlankIDs(n, func(tr rdf.Triple, s, o int32) error {
			require.Equal(t, n, s)
			check(tr.O, o)
			got = append(got, tr)
			return nil
		})
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, want, got, "node %d (%s)", n, seen[n])
	}
	ok, err = ids.MatchBlankIDs(int32(nodes), func(rdf.Triple, int32, int32) error { t.Fatal("walked"); return nil })
	require.NoError(t, err)
	require.True(t, ok)
	return number
}
