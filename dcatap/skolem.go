package dcatap

import (
	"bytes"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/rdf"
)

// GenidPath is the path segment under a record's IRI that its skolem IRIs live in
// (RDF 1.1 Concepts §3.5 recommends /.well-known/genid/).
const GenidPath = "/.well-known/genid/"

// FDKSkolemPath is the path segment of the FDK dataset harvester's skolem IRIs
// (<record>/.well-known/skolem/<uuid>), which FDK's stored graphs carry.
const FDKSkolemPath = "/.well-known/skolem/"

// IsSkolem reports whether iri is a skolem IRI standing for a blank node (Harvester's,
// GenidPath, or FDK's, FDKSkolemPath), not a name the publisher gave.
func IsSkolem(iri string) bool {
	return strings.Contains(iri, GenidPath) || strings.Contains(iri, FDKSkolemPath)
}

// skolemHexLen is how many hex digits of a blank node's content hash its skolem IRI carries
// (128 bits: collisions between distinct contents are out of reach).
const skolemHexLen = 32

// Skolemize returns ts with every blank node replaced by the IRI
// <scheme://authority>/.well-known/genid/<hash>, on the scheme and authority of the record IRI
// owner (RDF 1.1 Concepts §3.5; an owner without an authority, such as a URN, gives
// <owner>/.well-known/genid/<hash>, a trailing "/" of owner dropped), sorted by N-Triples line
// and without duplicates. The hash names the node's content, so two records of one authority
// that hold an identical blank node (the same triples below it) share its IRI. Earlier releases
// wrote <owner>/.well-known/genid/<hash> for every owner, with the same hash; SourceHash
// hashes that form, so stored source_hashes stay valid. The hash (32 hex digits of a SHA-256) depends only on
// the node's content, not on its label, the triples' order or the syntax it was parsed from:
//
//   - A node on no cycle of blank nodes hashes its sorted, distinct outgoing lines
//     "<predicate> object", where a blank object is written as its own hash (a Merkle hash,
//     bottom-up). Two values that are anagrams ("2019-04-02", "2019-02-04") give different
//     lines, so different hashes (FDK's character sort made them collide).
//   - Nodes on a cycle (a strongly connected set of blank nodes, or a self-loop) are hashed by
//     canonical colour refinement (refiner): they start from their lines with the cycle's nodes
//     written as one placeholder, and are split into classes by how many arcs of each
//     predicate they have into each class, until no class splits another (the coarsest
//     equitable partition, O((n+m) log n) steps for n nodes and m arcs, where refining by rounds
//     cost up to n rounds). A node's hash covers the whole cycle's quotient (each class's size,
//     lines and arc counts) and its class, so nodes of two cycles share a hash only when the
//     cycles have the same quotient. Every step reads only content, so the result is
//     isomorphism-invariant.
//
// So a node's IRI depends on everything reachable from it and on nothing else, and nodes with
// identical content (identical subtrees, or nodes of one class of a cycle) get one IRI and
// collapse into one node, as FDK's identical subtrees do: the graph `<d> :p _:x, _:y` with _:x
// and _:y both `[ :q "1" ]` skolemizes to one `<d> :p <…/genid/h>`. On a cycle nodes that no
// path of predicates, values and arc counts tells apart collapse: the four nodes of an
// unmarked ring `_:a :p _:b . _:b :p _:c . _:c :p _:d . _:d :p _:a` become `<h> :p <h>`, and
// 40 copies of one 40-node clique become that one node, so a change between 39 and 40 copies
// is not seen (a ring of 3 and one of 4 get different IRIs, as the cell sizes differ). Nodes
// that some path tells apart always get different IRIs. The search is iterative, so a chain
// of a million blank nodes needs no deep Go stack. Blank nodes reached only through other
// blank nodes get the same owner as every other blank node of ts.
func Skolemize(owner string, ts []rdf.Triple) []rdf.Triple {
	res, _ := skolemize(owner, ts)
	return res
}

// skolemize is Skolemize, and also returns the canonical N-Quads of the result (Canonical's
// nquads, made from the lines it sorted by), or nil when a triple is one Canonical refuses.
func skolemize(owner string, ts []rdf.Triple) ([]rdf.Triple, []byte) {
	out := map[rdf.Term][]rdf.Triple{}
	hasBlank := false
	for _, t := range ts {
		if t.S.IsBlank() {
			out[t.S] = append(out[t.S], t)
			hasBlank = true
		}
		hasBlank = hasBlank || t.O.IsBlank()
	}
	if !hasBlank {
		return sortTriples(ts)
	}
	h := newBlankHasher(func(b rdf.Term) ([]rdf.Triple, error) { return out[b], nil })
	prefix := genidBase(owner) + GenidPath
	iris := map[string]rdf.Term{} // by blank node label
	iri := func(t rdf.Term) rdf.Term {
		if !t.IsBlank() {
			return t
		}
		if s, ok := iris[t.Value]; ok {
			return s
		}
		sum, _ := h.hash(t) // the lookup above never fails
		s := rdf.IRI(prefix + hex.EncodeToString(sum[:skolemHexLen/2]))
		iris[t.Value] = s
		return s
	}
	res := make([]rdf.Triple, 0, len(ts))
	for _, t := range ts {
		res = append(res, rdf.Triple{S: iri(t.S), P: t.P, O: iri(t.O)})
	}
	return sortTriples(res)
}

// sortTriples returns ts sorted by N-Triples line without duplicates (a new slice), and the
// lines each ending in "\n" when every triple passes checkTriple (Canonical's nquads of the
// result), else nil.
func sortTriples(ts []rdf.Triple) ([]rdf.Triple, []byte) {
	if len(ts) == 0 {
		return nil, []byte{}
	}
	size := 0
	for _, t := range ts {
		size += len(t.S.Value) + len(t.P.Value) + len(t.O.Value) + len(t.O.Datatype) + len(t.O.Lang) + 16
	}
	buf := make([]byte, 0, size)
	ends := make([]int, len(ts)) // line i is buf[ends[i-1]:ends[i]]
	order := make([]int32, len(ts))
	valid := true
	for i, t := range ts {
		buf = t.AppendNTriples(buf)
		ends[i], order[i] = len(buf), int32(i)
		valid = valid && checkTriple(t) == nil
	}
	line := func(i int32) []byte {
		if i == 0 {
			return buf[:ends[0]]
		}
		return buf[ends[i-1]:ends[i]]
	}
	slices.SortFunc(order, func(a, b int32) int { return bytes.Compare(line(a), line(b)) })
	order = slices.CompactFunc(order, func(a, b int32) bool { return bytes.Equal(line(a), line(b)) })
	res := make([]rdf.Triple, len(order))
	var nquads []byte
	if valid {
		nquads = make([]byte, 0, len(buf)+len(order))
	}
	for i, j := range order {
		res[i] = ts[j]
		if valid {
			nquads = append(append(nquads, line(j)...), '\n')
		}
	}
	return res, nquads
}
