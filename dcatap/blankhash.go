package dcatap

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/harvester-dev/harvester/rdf"
)

type digest = [sha256.Size]byte

// blankHasher computes the content hash of blank nodes (see Skolemize) over any source of
// outgoing triples: a record's triples, or a whole rdf.Graph. Hashes are memoised.
//
// The strongly connected components of blank nodes are found by Tarjan's algorithm with an
// explicit stack (searchFrame), not Go recursion: a chain of a million blank nodes needs no more
// Go stack than a chain of one (a stack overflow is a fatal error that no recover stops). A
// search holds the outgoing triples of the nodes it has visited and not yet hashed, so its
// memory grows linearly with the blank nodes reachable from where it starts. Components are
// hashed as Skolemize says: a Merkle hash for a node on no cycle, canonical colour refinement
// (refiner, O((n+m) log n)) for a cycle.
type blankHasher struct {
	out  func(rdf.Term) ([]rdf.Triple, error)
	memo map[rdf.Term]digest
	// refineSteps counts the elementary steps of colour refinement over every component
	// hashed so far, so that tests can check the work stays near-linear.
	refineSteps int

	// Tarjan's state, per search.
	num   map[rdf.Term]int32 // a visited node's search number, its index in nodes
	nodes []searchNode
	stack []int32       // Tarjan's stack of search numbers
	calls []searchFrame // the depth-first path from the search's start
}

type searchNode struct {
	term    rdf.Term
	low     int32
	onStack bool
	edges   []rdf.Triple // nil once the node is hashed
}

// searchFrame is one node on the depth-first path and the index of its next edge to follow.
type searchFrame struct {
	v    int32
	next int
}

func newBlankHasher(out func(rdf.Term) ([]rdf.Triple, error)) *blankHasher {
	return &blankHasher{out: out, memo: map[rdf.Term]digest{}}
}

// hash returns b's content hash. The only error is the out function's.
func (h *blankHasher) hash(b rdf.Term) (digest, error) {
	if d, ok := h.memo[b]; ok {
		return d, nil
	}
	// Small state is cleared and reused (most searches visit a node or two); big state is
	// dropped, since clearing costs its capacity on every later search.
	if h.num == nil || len(h.num) > 64 {
		h.num, h.nodes = map[rdf.Term]int32{}, nil
	} else {
		clear(h.num)
		clear(h.nodes)
		h.nodes = h.nodes[:0]
	}
	h.stack, h.calls = h.stack[:0], h.calls[:0]
	if err := h.visit(b); err != nil {
		return digest{}, err
	}
	for len(h.calls) > 0 {
		top := len(h.calls) - 1
		v := h.calls[top].v
		if es := h.nodes[v].edges; h.calls[top].next < len(es) {
			w := es[h.calls[top].next].O
			h.calls[top].next++
			if !w.IsBlank() {
				continue
			}
			if _, done := h.memo[w]; done {
				continue
			}
			if j, seen := h.num[w]; !seen {
				if err := h.visit(w); err != nil {
					return digest{}, err
				}
			} else if h.nodes[j].onStack {
				h.nodes[v].low = min(h.nodes[v].low, j)
			}
			continue
		}
		// Every edge of v is followed: return to its parent.
		h.calls = h.calls[:top]
		if top > 0 {
			p := h.calls[top-1].v
			h.nodes[p].low = min(h.nodes[p].low, h.nodes[v].low)
		}
		if h.nodes[v].low == v {
			h.popComponent(v)
		}
	}
	return h.memo[b], nil
}

// visit starts the search of blank node b.
func (h *blankHasher) visit(b rdf.Term) error {
	es, err := h.out(b)
	if err != nil {
		return err
	}
	v := int32(len(h.nodes))
	h.num[b] = v
	h.nodes = append(h.nodes, searchNode{term: b, low: v, onStack: true, edges: es})
	h.stack = append(h.stack, v)
	h.calls = append(h.calls, searchFrame{v: v})
	return nil
}

// popComponent takes the component whose root is v off Tarjan's stack and hashes it; every
// blank object outside it is hashed already.
func (h *blankHasher) popComponent(v int32) {
	i := len(h.stack) - 1
	for h.stack[i] != v {
		i--
	}
	scc := h.stack[i:]
	for _, w := range scc {
		h.nodes[w].onStack = false
	}
	if len(scc) == 1 && !h.selfLoop(scc[0]) {
		n := &h.nodes[scc[0]]
		h.memo[n.term] = h.digestOf("node", n.edges, nil)
	} else {
		r := newRefiner(h, scc)
		r.run()
		for i, d := range r.digests() {
			h.memo[h.nodes[scc[i]].term] = d
		}
		h.refineSteps += r.steps
	}
	for _, w := range scc {
		h.nodes[w].edges = nil
	}
	h.stack = h.stack[:i]
}

func (h *blankHasher) selfLoop(v int32) bool {
	for _, t := range h.nodes[v].edges {
		if t.O == h.nodes[v].term {
			return true
		}
	}
	return false
}

// digestOf hashes tag and the sorted distinct lines "<predicate> object" of the outgoing
// triples es. A blank object is written as "_:" when inside says it is in the component being
// hashed (inside may be nil), else as "_:" and its hash from memo.
func (h *blankHasher) digestOf(tag string, es []rdf.Triple, inside map[rdf.Term]int32) digest {
	lines := make([]string, 0, len(es))
	for _, t := range es {
		var obj string
		switch _, in := inside[t.O]; {
		case !t.O.IsBlank():
			obj = t.O.NTriples()
		case in:
			obj = "_:"
		default:
			d := h.memo[t.O]
			obj = "_:" + hex.EncodeToString(d[:])
		}
		lines = append(lines, t.P.NTriples()+" "+obj)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	s := sha256.New()
	s.Write([]byte(tag))
	s.Write([]byte{'\n'})
	for _, l := range lines {
		s.Write([]byte(l))
		s.Write([]byte{'\n'})
	}
	var d digest
	s.Sum(d[:0])
	return d
}
