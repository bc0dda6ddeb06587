package dcatap

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/rdf"
)

// GenidPath is the path segment under a record's IRI that its skolem IRIs live in
// (RDF 1.1 Concepts §3.5 recommends /.well-known/genid/).
const GenidPath = "/.well-known/genid/"

// skolemHexLen is how many hex digits of a blank node's content hash its skolem IRI carries
// (128 bits: collisions between distinct contents are out of reach).
const skolemHexLen = 32

// Skolemize returns ts with every blank node replaced by the IRI
// <owner>/.well-known/genid/<hash> (a trailing "/" of owner is dropped first), sorted by
// N-Triples line and without duplicates. The hash (32 hex digits of a SHA-256) depends only on
// the node's content, not on its label, the triples' order or the syntax it was parsed from:
//
//   - A node on no cycle of blank nodes hashes its sorted, distinct outgoing lines
//     "<predicate> object", where a blank object is written as its own hash (a Merkle hash,
//     bottom-up). Two values that are anagrams ("2019-04-02", "2019-02-04") give different
//     lines, so different hashes (FDK's character sort made them collide).
//   - Nodes on a cycle (a strongly connected set of blank nodes, or a self-loop) are hashed by
//     partition refinement: each starts from its lines with the cycle's nodes written as one
//     placeholder, then is re-hashed with its neighbours' previous hashes until the number of
//     distinct hashes stops growing; the final hash adds a digest of the whole cycle's quotient
//     (its classes and their lines), so nodes of different cycles share a hash only when they are
//     bisimilar. Every step reads only content, so the result is isomorphism-invariant and the
//     loop ends after at most as many rounds as the cycle has nodes.
//
// So a node's IRI depends on everything reachable from it and on nothing else, and nodes with
// identical content (identical subtrees, or bisimilar nodes on cycles) get one IRI and collapse
// into one node, as FDK's identical subtrees do: the graph `<d> :p _:x, _:y` with _:x and _:y
// both `[ :q "1" ]` skolemizes to one `<d> :p <…/genid/h>`. On cycles "identical" means
// bisimilar (no path of predicates and values tells the nodes apart): `_:a :p _:b . _:b :p _:a`
// and `_:c :p _:c` both become `<h> :p <h>`, so a change between two such shapes is not seen;
// nodes that some path tells apart always get different IRIs. Blank nodes reached only through
// other blank nodes get the same owner as every other blank node of ts.
func Skolemize(owner string, ts []rdf.Triple) []rdf.Triple {
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
		return sortTriples(slices.Clone(ts))
	}
	h := newBlankHasher(func(b rdf.Term) ([]rdf.Triple, error) { return out[b], nil })
	prefix := strings.TrimSuffix(owner, "/") + GenidPath
	iri := func(t rdf.Term) rdf.Term {
		if !t.IsBlank() {
			return t
		}
		sum, _ := h.hash(t) // the lookup above never fails
		return rdf.IRI(prefix + hex.EncodeToString(sum[:])[:skolemHexLen])
	}
	res := make([]rdf.Triple, 0, len(ts))
	for _, t := range ts {
		res = append(res, rdf.Triple{S: iri(t.S), P: t.P, O: iri(t.O)})
	}
	return sortTriples(res)
}

// sortTriples sorts ts by N-Triples line and drops duplicates, in place.
func sortTriples(ts []rdf.Triple) []rdf.Triple {
	type keyed struct {
		line string
		t    rdf.Triple
	}
	ks := make([]keyed, len(ts))
	for i, t := range ts {
		ks[i] = keyed{t.NTriples(), t}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return strings.Compare(a.line, b.line) })
	ks = slices.CompactFunc(ks, func(a, b keyed) bool { return a.line == b.line })
	ts = ts[:len(ks)]
	for i, k := range ks {
		ts[i] = k.t
	}
	return ts
}

type digest = [sha256.Size]byte

// blankHasher computes the content hash of blank nodes (see Skolemize) over any source of
// outgoing triples: a record's triples, or a whole rdf.Graph. Hashes are memoised; the
// Tarjan state lives only for one search.
type blankHasher struct {
	out  func(rdf.Term) ([]rdf.Triple, error)
	memo map[rdf.Term]digest

	// Tarjan's strongly connected components, per search.
	index   int
	idx     map[rdf.Term]int
	low     map[rdf.Term]int
	onStack map[rdf.Term]bool
	stack   []rdf.Term
	edges   map[rdf.Term][]rdf.Triple
}

func newBlankHasher(out func(rdf.Term) ([]rdf.Triple, error)) *blankHasher {
	return &blankHasher{out: out, memo: map[rdf.Term]digest{}}
}

// hash returns b's content hash. The only error is the out function's.
func (h *blankHasher) hash(b rdf.Term) (digest, error) {
	if d, ok := h.memo[b]; ok {
		return d, nil
	}
	if h.idx == nil || len(h.idx) > 64 {
		// Small maps are cleared and reused (most searches visit a node or two); a big one is
		// dropped, since clearing costs its capacity on every later search.
		h.idx, h.low, h.onStack = map[rdf.Term]int{}, map[rdf.Term]int{}, map[rdf.Term]bool{}
		h.edges = map[rdf.Term][]rdf.Triple{}
	} else {
		clear(h.idx)
		clear(h.low)
		clear(h.onStack)
		clear(h.edges)
	}
	h.index = 0
	h.stack = h.stack[:0]
	err := h.strongConnect(b)
	if err != nil {
		return digest{}, err
	}
	return h.memo[b], nil
}

// strongConnect is Tarjan's algorithm from v over blank nodes not yet hashed; each component is
// hashed as soon as it is complete, so every blank object outside it is already in memo.
func (h *blankHasher) strongConnect(v rdf.Term) error {
	h.idx[v], h.low[v] = h.index, h.index
	h.index++
	h.stack = append(h.stack, v)
	h.onStack[v] = true
	es, err := h.out(v)
	if err != nil {
		return err
	}
	h.edges[v] = es
	for _, t := range es {
		w := t.O
		if !w.IsBlank() {
			continue
		}
		if _, done := h.memo[w]; done {
			continue
		}
		if _, seen := h.idx[w]; !seen {
			if err := h.strongConnect(w); err != nil {
				return err
			}
			h.low[v] = min(h.low[v], h.low[w])
		} else if h.onStack[w] {
			h.low[v] = min(h.low[v], h.idx[w])
		}
	}
	if h.low[v] != h.idx[v] {
		return nil
	}
	var scc []rdf.Term
	for {
		w := h.stack[len(h.stack)-1]
		h.stack = h.stack[:len(h.stack)-1]
		h.onStack[w] = false
		scc = append(scc, w)
		if w == v {
			break
		}
	}
	h.hashComponent(scc)
	for _, w := range scc {
		delete(h.edges, w)
	}
	return nil
}

// hashComponent hashes one strongly connected component whose outside blank objects are all
// memoised.
func (h *blankHasher) hashComponent(scc []rdf.Term) {
	if len(scc) == 1 && !h.selfLoop(scc[0]) {
		h.memo[scc[0]] = h.digestOf("node", nil, h.edges[scc[0]], nil)
		return
	}
	in := map[rdf.Term]bool{}
	for _, v := range scc {
		in[v] = true
	}
	// Round 0: the component's nodes are one placeholder.
	colour := map[rdf.Term]digest{}
	for _, v := range scc {
		colour[v] = h.digestOf("cycle0", nil, h.edges[v], in)
	}
	classes := distinct(colour)
	for {
		next := make(map[rdf.Term]digest, len(scc))
		for _, v := range scc {
			own := colour[v]
			next[v] = h.digestOf("cycle", &own, h.edges[v], colourOf(colour))
		}
		n := distinct(next)
		colour = next
		if n == classes {
			break
		}
		classes = n
	}
	// The stable colours tell the component's nodes apart, but a colour alone does not say
	// what lies beyond its rounds: two components of other shapes could share one. So each
	// node's hash also covers the whole component's quotient (every class with its lines written
	// in classes), and nodes of two components get one IRI only when the components have the
	// same quotient, that is when the nodes are bisimilar.
	entries := make([]string, 0, len(scc))
	for _, v := range scc {
		own := colour[v]
		e := h.digestOf("class", &own, h.edges[v], colourOf(colour))
		entries = append(entries, hex.EncodeToString(e[:]))
	}
	slices.Sort(entries)
	entries = slices.Compact(entries)
	q := sha256.New()
	for _, e := range entries {
		q.Write([]byte(e))
		q.Write([]byte{'\n'})
	}
	quotient := q.Sum(nil)
	for _, v := range scc {
		c := colour[v]
		f := sha256.New()
		f.Write([]byte("component\n"))
		f.Write(quotient)
		f.Write(c[:])
		var d digest
		f.Sum(d[:0])
		h.memo[v] = d
	}
}

func (h *blankHasher) selfLoop(v rdf.Term) bool {
	for _, t := range h.edges[v] {
		if t.O == v {
			return true
		}
	}
	return false
}

// colourOf marks the component's nodes for digestOf, with their current colours.
type colourOf map[rdf.Term]digest

// digestOf hashes tag, an optional previous colour, and the sorted distinct lines of the
// outgoing triples es. A blank object is written as its hash: from cur when it is a component
// node under refinement (a colourOf), as "_:" when it is a component node in round 0 (a
// map[rdf.Term]bool), and from memo otherwise.
func (h *blankHasher) digestOf(tag string, prev *digest, es []rdf.Triple, cur any) digest {
	lines := make([]string, 0, len(es))
	for _, t := range es {
		var obj string
		switch {
		case !t.O.IsBlank():
			obj = t.O.NTriples()
		default:
			switch c := cur.(type) {
			case colourOf:
				if d, ok := c[t.O]; ok {
					obj = "_:" + hex.EncodeToString(d[:])
				}
			case map[rdf.Term]bool:
				if c[t.O] {
					obj = "_:"
				}
			}
			if obj == "" {
				d := h.memo[t.O]
				obj = "_:" + hex.EncodeToString(d[:])
			}
		}
		lines = append(lines, t.P.NTriples()+" "+obj)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	s := sha256.New()
	s.Write([]byte(tag))
	s.Write([]byte{'\n'})
	if prev != nil {
		s.Write([]byte(hex.EncodeToString(prev[:])))
		s.Write([]byte{'\n'})
	}
	for _, l := range lines {
		s.Write([]byte(l))
		s.Write([]byte{'\n'})
	}
	var d digest
	s.Sum(d[:0])
	return d
}

func distinct(m map[rdf.Term]digest) int {
	seen := map[digest]struct{}{}
	for _, d := range m {
		seen[d] = struct{}{}
	}
	return len(seen)
}
