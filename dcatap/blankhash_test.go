package dcatap

import (
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

var (
	exNext = rdf.IRI("http://ex.org/next")
	exMark = rdf.IRI("http://ex.org/mark")
)

// blankChain is `<owner> :p _:c0` and `_:ci :next _:c(i+1)` for i < n.
func blankChain(n int) []rdf.Triple {
	ts := []rdf.Triple{{S: rdf.IRI(owner), P: rdf.IRI("http://ex.org/p"), O: rdf.Blank("c0")}}
	for i := range n {
		ts = append(ts, rdf.Triple{S: rdf.Blank(fmt.Sprint("c", i)), P: exNext, O: rdf.Blank(fmt.Sprint("c", i+1))})
	}
	return ts
}

// blankRing is `_:bi :next _:b(i+1 mod n)` and `_:b0 :mark "x"`.
func blankRing(n int, label string) []rdf.Triple {
	b := func(i int) rdf.Term { return rdf.Blank(fmt.Sprint(label, i%n)) }
	ts := []rdf.Triple{{S: b(0), P: exMark, O: rdf.Literal("x", "", "")}}
	for i := range n {
		ts = append(ts, rdf.Triple{S: b(i), P: exNext, O: b(i + 1)})
	}
	return ts
}

// A blank-node chain was hashed by recursion, one Go frame per node: a long one overflowed the
// stack, a fatal error that killed the process (serve too). With the stack capped at 1 MiB the
// recursive search died at a depth of a few thousand; the iterative one needs no more stack for
// 200,000 nodes than for 2.
func TestBlankChainNeedsNoDeepStack(t *testing.T) {
	ts := blankChain(200_000)
	g := graphOf(t, ts)
	defer debug.SetMaxStack(debug.SetMaxStack(1 << 20))

	_, err := GraphHash(g)
	require.NoError(t, err)
	out := Skolemize(owner, ts)
	assert.Len(t, out, len(ts))
	iris := map[rdf.Term]bool{}
	for _, tr := range out {
		require.False(t, tr.S.IsBlank() || tr.O.IsBlank())
		iris[tr.O] = true
	}
	assert.Equal(t, len(ts), len(iris), "every node of the chain is told apart")
}

// Refining a ring by rounds took as many rounds as the ring has nodes (n² steps: a 338 KB ring
// took 8.5 minutes); the canonical refinement takes O((n+m) log n) steps.
func TestBlankRingRefinementIsNearLinear(t *testing.T) {
	for _, n := range []int{1_000, 10_000} {
		h := newBlankHasher(outOf(blankRing(n, "b")))
		_, err := h.hash(rdf.Blank("b0"))
		require.NoError(t, err)
		bound := 8 * (2 * n) * int(math.Ceil(math.Log2(float64(n))))
		assert.Less(t, h.refineSteps, bound, "n=%d", n)
		assert.Greater(t, h.refineSteps, 2*n, "n=%d: the steps are counted", n)
	}
	// Every node of a marked ring is told apart: n IRIs, n+1 triples; a relabelled, rotated and
	// reordered ring is the same graph.
	ts := blankRing(500, "b")
	out := ntriples(Skolemize(owner, ts))
	assert.Len(t, genids(out), 500)
	assert.Equal(t, 501, strings.Count(out, "\n"))
	other := blankRing(500, "z")
	slices.Reverse(other)
	assert.Equal(t, out, ntriples(Skolemize(owner, other)))
}

// Unmarked rings of other sizes are other graphs: the quotient counts cell sizes (by rounds
// they were bisimilar, so both became `<h> :next <h>` with one h).
func TestBlankRingsOfOtherSizesDiffer(t *testing.T) {
	ring := func(n int) string {
		ts := blankRing(n, "r")[1:] // no mark
		ts = append(ts, rdf.Triple{S: rdf.IRI(owner), P: rdf.IRI("http://ex.org/p"), O: rdf.Blank("r0")})
		return ntriples(Skolemize(owner, ts))
	}
	assert.NotEqual(t, ring(3), ring(4))
	assert.Len(t, genids(ring(4)), 1, "the nodes of an unmarked ring are alike: one IRI")
	assert.Equal(t, 2, strings.Count(ring(4), "\n"))
}

// On random graphs of blank nodes with cycles, two nodes get one hash exactly when naive colour
// refinement (by rounds, counting arcs) gives them one colour, and relabelling and reordering
// the triples changes no hash.
func TestRefinementMatchesNaiveColourRefinement(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	preds := []rdf.Term{rdf.IRI("http://ex.org/p"), rdf.IRI("http://ex.org/q")}
	for trial := range 200 {
		n := 2 + rng.IntN(12)
		var ts []rdf.Triple
		for i := range n {
			ts = append(ts, rdf.Triple{S: rdf.Blank(fmt.Sprint("n", i)), P: preds[0], O: rdf.Blank(fmt.Sprint("n", (i+1)%n))})
		}
		for range rng.IntN(2 * n) {
			ts = append(ts, rdf.Triple{S: rdf.Blank(fmt.Sprint("n", rng.IntN(n))), P: preds[rng.IntN(2)],
				O: rdf.Blank(fmt.Sprint("n", rng.IntN(n)))})
		}
		for range rng.IntN(3) {
			ts = append(ts, rdf.Triple{S: rdf.Blank(fmt.Sprint("n", rng.IntN(n))), P: exMark, O: rdf.Literal(fmt.Sprint(rng.IntN(2)), "", "")})
		}
		h := newBlankHasher(outOf(ts))
		naive := naiveColours(ts)
		for i := range n {
			for j := range n {
				hi, err := h.hash(rdf.Blank(fmt.Sprint("n", i)))
				require.NoError(t, err)
				hj, err := h.hash(rdf.Blank(fmt.Sprint("n", j)))
				require.NoError(t, err)
				require.Equal(t, naive[i] == naive[j], hi == hj, "trial %d nodes %d %d: %s", trial, i, j, ntriples(ts))
			}
		}
		perm := rng.Perm(n)
		other := make([]rdf.Triple, len(ts))
		for k, tr := range ts {
			other[len(ts)-1-k] = rdf.Triple{S: permuted(tr.S, perm), P: tr.P, O: permuted(tr.O, perm)}
		}
		require.Equal(t, ntriples(Skolemize(owner, ts)), ntriples(Skolemize(owner, other)), "trial %d", trial)
	}
}

func outOf(ts []rdf.Triple) func(rdf.Term) ([]rdf.Triple, error) {
	out := map[rdf.Term][]rdf.Triple{}
	for _, t := range ts {
		out[t.S] = append(out[t.S], t)
	}
	return func(b rdf.Term) ([]rdf.Triple, error) { return out[b], nil }
}

func permuted(t rdf.Term, perm []int) rdf.Term {
	if !t.IsBlank() {
		return t
	}
	var i int
	fmt.Sscanf(t.Value, "n%d", &i)
	return rdf.Blank(fmt.Sprint("x", perm[i]))
}

// naiveColours refines colours of the blank nodes n0… of ts by rounds: a node's next colour is
// its colour and the multiset of (predicate, object colour) of its distinct triples, until the
// number of colours stops growing. All of ts's nodes here are in one component or reach it.
func naiveColours(ts []rdf.Triple) map[int]string {
	ts, _ = sortTriples(ts)
	colour := map[rdf.Term]string{}
	for _, t := range ts {
		colour[t.S], colour[t.O] = "", ""
	}
	for t := range colour {
		if !t.IsBlank() {
			colour[t] = t.NTriples()
		}
	}
	count := func(m map[rdf.Term]string) int {
		seen := map[string]bool{}
		for t, c := range m {
			if t.IsBlank() {
				seen[c] = true
			}
		}
		return len(seen)
	}
	for classes := count(colour); ; {
		next := map[rdf.Term]string{}
		lines := map[rdf.Term][]string{}
		for _, t := range ts {
			lines[t.S] = append(lines[t.S], t.P.Value+" "+colour[t.O])
		}
		for t, c := range colour {
			if !t.IsBlank() {
				next[t] = c
				continue
			}
			ls := lines[t]
			slices.Sort(ls)
			next[t] = fmt.Sprintf("%x", sha256.Sum256([]byte(c+"|"+strings.Join(ls, ";"))))
		}
		colour = next
		if n := count(colour); n == classes {
			break
		} else {
			classes = n
		}
	}
	out := map[int]string{}
	for t, c := range colour {
		var i int
		if t.IsBlank() {
			fmt.Sscanf(t.Value, "n%d", &i)
			out[i] = c
		}
	}
	return out
}
