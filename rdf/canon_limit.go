package rdf

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrCanonicalTooComplex is returned by CanonicalNQuads for a graph whose blank nodes URDNA2015
// could only tell apart by trying more than MaxCanonicalPermutations orderings.
var ErrCanonicalTooComplex = errors.New("blank nodes too alike to canonicalize")

// MaxCanonicalPermutations caps the work CanonicalNQuads lets URDNA2015 do: the orderings its
// Hash N-Degree Quads step tries first, summed over the blank nodes whose first-degree hashes
// are shared (RDFC-1.0 §4.8: for each such node, the product over its groups of alike
// neighbours of the group size factorial). Deeper levels multiply this, so it is a lower bound
// of the real work; the W3C "poison graph" (a clique of 10 alike blank nodes, 9! orderings per
// node, which json-gold does not end in 5 minutes) is refused at once, and a graph that
// RDFC-1.0's own call limit accepts rarely comes near it.
const MaxCanonicalPermutations = 100_000

// canonicalWork returns the first-level orderings URDNA2015 would try on ts (see
// MaxCanonicalPermutations), stopping once past the cap.
func canonicalWork(ts []Triple) int {
	mentions := map[Term][]Triple{}
	for _, t := range ts {
		if t.S.IsBlank() {
			mentions[t.S] = append(mentions[t.S], t)
		}
		if t.O.IsBlank() && t.O != t.S {
			mentions[t.O] = append(mentions[t.O], t)
		}
	}
	first := make(map[Term]string, len(mentions)) // RDFC-1.0 §4.6, as text rather than a hash
	shared := map[string]int{}
	for b, qs := range mentions {
		lines := make([]string, 0, len(qs))
		for _, q := range qs {
			lines = append(lines, blankAs(q.S, b)+" "+q.P.NTriples()+" "+blankAs(q.O, b))
		}
		slices.Sort(lines)
		first[b] = strings.Join(lines, "\n")
		shared[first[b]]++
	}
	work := 0
	for b, qs := range mentions {
		if shared[first[b]] < 2 {
			continue // a unique first-degree hash is issued an identifier at once
		}
		groups := map[string]int{} // RDFC-1.0 §4.7: related hash of each blank neighbour
		for _, q := range qs {
			if q.S == b && q.O.IsBlank() && q.O != b {
				groups["o "+q.P.Value+" "+first[q.O]]++
			}
			if q.O == b && q.S.IsBlank() && q.S != b {
				groups["s "+q.P.Value+" "+first[q.S]]++
			}
		}
		orderings := 1
		for _, n := range groups {
			for k := 2; k <= n && orderings <= MaxCanonicalPermutations; k++ {
				orderings *= k
			}
		}
		if work += orderings; work > MaxCanonicalPermutations {
			return work
		}
	}
	return work
}

// blankAs writes t as RDFC-1.0's first-degree hash does: the node b as _:a, any other blank
// node as _:z.
func blankAs(t, b Term) string {
	switch {
	case t == b:
		return "_:a"
	case t.IsBlank():
		return "_:z"
	}
	return t.NTriples()
}

// checkCanonicalWork returns an error wrapping ErrCanonicalTooComplex when canonicalWork(ts)
// passes MaxCanonicalPermutations.
func checkCanonicalWork(ts []Triple) error {
	if w := canonicalWork(ts); w > MaxCanonicalPermutations {
		return fmt.Errorf("rdf: canonical N-Quads: %w: URDNA2015 would try more than %d orderings of alike blank nodes (the cap, MaxCanonicalPermutations)",
			ErrCanonicalTooComplex, MaxCanonicalPermutations)
	}
	return nil
}
