package rdf_test

import (
	"fmt"
	"slices"
	"strings"
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

// The spill graph keeps the arena place of one term in 16 and reads on from it: every term comes
// back exactly, with terms of every length, some longer than a chunk of the arena (a chunk of
// their own), chunks in the file and in memory, before and after its table of terms by value is
// made again; and its places are a sixteenth of its terms (issue 34 item 5: 4 bytes a term were
// 12 MiB of a 209,715-dataset catalog's listing).
func TestGraphTermPlaces(t *testing.T) {
	defer rdf.SetTermArena(4096, 8192)()
	g, err := rdf.NewGraph(t.TempDir(), 0)
	require.NoError(t, err)
	defer g.Close()
	p := rdf.IRI("http://e.org/p")
	var want []string
	const n = 20_000
	for i := range n {
		o := rdf.Literal(strings.Repeat("x", i%300)+fmt.Sprint(i), "", "")
		if i%997 == 0 {
			o = rdf.Literal(strings.Repeat("long ", 2000)+fmt.Sprint(i), "", "en") // 10 KB: over a 4 KiB chunk
		}
		tr := rdf.Triple{S: rdf.IRI(fmt.Sprintf("http://e.org/s/%d", i/3)), P: p, O: o}
		require.NoError(t, g.Add(tr))
		want = append(want, tr.NTriples())
	}
	terms, places := rdf.TermPlaces(g)
	require.Equal(t, n+n/3+1+1, terms, "objects, subjects, the predicate")
	require.Equal(t, (terms+15)/16, places)
	all := func() []string {
		var got []string
		require.NoError(t, g.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error {
			got = append(got, tr.NTriples())
			return nil
		}))
		slices.Sort(got)
		return got
	}
	slices.Sort(want)
	same := func(got []string, what string) {
		t.Helper()
		require.Len(t, got, len(want), what)
		for i := range want {
			require.Equal(t, clip(want[i]), clip(got[i]), "%s: triple %d", what, i)
		}
	}
	same(all(), "every term read back (the table of terms by value dropped)")
	for i := 0; i < n; i += 7 { // lookups make the table again from the arena
		s := rdf.IRI(fmt.Sprintf("http://e.org/s/%d", i/3))
		require.Equal(t, min(3, n-i/3*3), count(t, g, s, rdf.Term{}, rdf.Term{}), "%v", s)
	}
	o := rdf.Literal(strings.Repeat("long ", 2000)+"997", "", "en")
	require.Equal(t, 1, count(t, g, rdf.Term{}, rdf.Term{}, o), "a term in a chunk of its own, found by value")
	same(all(), "read back again")
}

// clip cuts s to its first and last 60 bytes, so that a failure shows a short line.
func clip(s string) string {
	if len(s) <= 130 {
		return s
	}
	return s[:60] + "…" + s[len(s)-60:]
}
