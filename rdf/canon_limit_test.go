package rdf_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// clique is n blank nodes, each linked by :p to every other (the W3C rdf-canon "poison graph"
// shape, test074, for n = 10).
func clique(n int) []rdf.Triple {
	var ts []rdf.Triple
	for i := range n {
		for j := range n {
			if i != j {
				ts = append(ts, rdf.Triple{S: rdf.Blank(fmt.Sprint("e", i)), P: rdf.IRI("http://example.com/p"),
					O: rdf.Blank(fmt.Sprint("e", j))})
			}
		}
	}
	return ts
}

// The poison graph did not end in 5 minutes; now it is a clear error at once. A small clique
// still canonicalizes.
func TestCanonicalNQuadsPoisonGraph(t *testing.T) {
	_, err := rdf.CanonicalNQuads(clique(10))
	require.ErrorIs(t, err, rdf.ErrCanonicalTooComplex)
	require.ErrorContains(t, err, "MaxCanonicalPermutations")
	require.Equal(t, 4*3, strings.Count(canon(t, clique(4)), "\n"))
}

// A triple given twice is one line (json-gold wrote it twice).
func TestCanonicalNQuadsDistinct(t *testing.T) {
	tr := rdf.Triple{S: rdf.Blank("x"), P: rdf.IRI("http://example.com/p"), O: rdf.Literal("1", "", "")}
	plain := rdf.Triple{S: rdf.IRI("http://example.com/s"), P: rdf.IRI("http://example.com/p"), O: rdf.Blank("x")}
	require.Equal(t, canon(t, []rdf.Triple{tr, plain}), canon(t, []rdf.Triple{tr, plain, tr, plain}))
	require.Equal(t, 2, strings.Count(canon(t, []rdf.Triple{tr, plain, tr}), "\n"))
}
