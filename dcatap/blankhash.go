package dcatap

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"

	"github.com/harvester-dev/harvester/rdf"
)

type digest = [sha256.Size]byte

// interner numbers blank nodes and predicates as int32, so that the blank hasher's per-node
// state is slices indexed by node (a 32-byte hash, a search number) and its edges are 8 bytes,
// not maps keyed by rdf.Term and triples of three terms (GraphHash of a chain of a million blank
// nodes held 854 MiB that way, 205–217 MiB now: TestGraphHashChainMemory). A blank node is known by its label (two blank terms are the same term
// exactly when their labels are equal), numbered 0, 1, … in the order first seen. Predicates are
// kept as their N-Triples form, the form the hash lines use.
type interner struct {
	blank *labelTable      // nil once dropLabels ran
	n     int32            // how many blank nodes are numbered
	err   error            // a label the table could not number (past 4 GiB of labels)
	pred  map[string]int32 // by IRI
	preds []string         // N-Triples, by number
	objs  []string         // the N-Triples of the objects of edges that are not blank nodes
}

// nodes is how many blank nodes are numbered.
func (in *interner) nodes() int { return int(in.n) }

// dropLabels frees the table of labels, once no node is to be numbered or looked up by label.
func (in *interner) dropLabels() { in.blank = nil }

// label returns the label of blank node id.
func (in *interner) label(id int32) string { return string(in.blank.at(id)) }

func newInterner() *interner {
	return &interner{blank: newLabelTable(), pred: map[string]int32{}}
}

// blankID returns the number of the blank node labelled label, numbering it if it is new. A
// label the table cannot hold sets in.err and numbers nothing (0 stands in).
func (in *interner) blankID(label string) int32 {
	id, ok := in.blank.number(label)
	if !ok {
		if in.err == nil {
			in.err = errors.New("more than 4 GiB of blank node labels")
		}
		return 0
	}
	in.n = int32(in.blank.len())
	return id
}

// see counts blank node id (a number the graph gave: graphScan) among the numbered ones; a
// negative id is no blank node.
func (in *interner) see(id int32) {
	if id >= in.n {
		in.n = id + 1
	}
}

// predID returns the number of predicate p (an IRI), numbering it if it is new.
func (in *interner) predID(p rdf.Term) int32 {
	if id, ok := in.pred[p.Value]; ok {
		return id
	}
	id := int32(len(in.preds))
	in.pred[p.Value] = id
	in.preds = append(in.preds, p.NTriples())
	return id
}

// edge is one outgoing triple of a blank node, interned (8 bytes): its predicate's number, and
// its object's number when the object is a blank node (o >= 0), else -1-o is the index of the
// object's N-Triples in the interner's objs.
type edge struct {
	p, o int32
}

// edge interns t, and returns its subject's number (-1 when it is not a blank node) and its
// predicate and object as an edge.
func (in *interner) edge(t rdf.Triple) (int32, edge) {
	s, o := int32(-1), int32(-1)
	if t.S.IsBlank() {
		s = in.blankID(t.S.Value)
	}
	if t.O.IsBlank() {
		o = in.blankID(t.O.Value)
	}
	return s, in.edgeTo(t, o)
}

// edgeTo interns t's predicate and object as an edge, given the object's number (o, -1 when
// it is not a blank node).
func (in *interner) edgeTo(t rdf.Triple, o int32) edge {
	e := edge{p: in.predID(t.P), o: o}
	if o < 0 {
		e.o = -1 - int32(len(in.objs))
		in.objs = append(in.objs, t.O.NTriples())
	}
	return e
}

// object returns e's object in N-Triples, when it is not a blank node.
func (in *interner) object(e edge) string { return in.objs[-1-e.o] }

// blankHasher computes the content hash of blank nodes (see Skolemize) over any source of
// outgoing triples: a record's triples, or a whole rdf.Graph. Hashes are memoised. Nodes are
// numbered by an interner, and everything the hasher holds per node is indexed by that number.
//
// The strongly connected components of blank nodes are found by Tarjan's algorithm with an
// explicit stack (searchFrame), not Go recursion: a chain of a million blank nodes needs no more
// Go stack than a chain of one (a stack overflow is a fatal error that no recover stops). A
// search holds the outgoing edges of the nodes it has visited and not yet hashed, so its
// memory grows linearly with the blank nodes reachable from where it starts (about 44 bytes a
// node besides its edges). Components are hashed as Skolemize says: a Merkle hash for a node on
// no cycle, canonical colour refinement (refiner, O((n+m) log n)) for a cycle.
type blankHasher struct {
	in  *interner
	out func(id int32) ([]edge, error)
	// dropObjs says that only the search's nodes' edges (from out) point into in.objs, so that
	// they can go when the search ends.
	dropObjs bool
	// kept, when not nil, gives a node's edges again at no cost (GraphHash's kept triples): a
	// search then holds no edges of its own (edges stays empty), 24 bytes a node less on a
	// chain that one search visits whole.
	kept func(id int32) []edge
	// slot[id] is 0 while node id is not hashed, then 1 + the index of its hash in slab, and
	// released once its hash is dropped (release); slab's free entries are listed in free.
	slot []int32
	slab []digest
	free []int32
	// refs, when not nil, counts for each node the uses of its hash left (its arcs from blank
	// nodes not hashed yet, 255 for always: GraphHash with the triples kept, which sums a node's
	// triples as it hashes it, onHashed): a hash is dropped when its last use is done, so that a
	// chain of blank nodes holds a hash or two, not 32 bytes a node.
	refs []uint8
	// onHashed, when not nil, is called with the node numbers of each component once hashed.
	onHashed func(ids []int32)
	sccIDs   []int32
	// refineSteps counts the elementary steps of colour refinement over every component
	// hashed so far, so that tests can check the work stays near-linear.
	refineSteps int

	// Tarjan's state, per search.
	// num holds, for each node the search visited, 1 + its search number (its index in nodes):
	// a map, as a search mostly visits a node or two (a slice by node number took 4 bytes a node).
	num   map[int32]int32
	nodes []searchNode
	edges [][]edge      // by search number: the node's edges (from out), nil once hashed; unused with kept
	stack []int32       // Tarjan's stack of search numbers
	calls []searchFrame // the depth-first path from the search's start
}

// searchNode is a node the search visited. It is on Tarjan's stack exactly when it is not
// hashed yet: a component is hashed as soon as it is taken off the stack.
type searchNode struct {
	id  int32
	low int32
}

// edgesOf returns the outgoing edges of the node of search number v.
func (h *blankHasher) edgesOf(v int32) []edge {
	if h.kept != nil {
		return h.kept(h.nodes[v].id)
	}
	return h.edges[v]
}

// searchFrame is one node on the depth-first path and the index of its next edge to follow.
type searchFrame struct {
	v    int32
	next int32
}

// newBlankHasher returns a hasher whose out gives a blank node's outgoing triples.
func newBlankHasher(out func(rdf.Term) ([]rdf.Triple, error)) *blankHasher {
	in := newInterner()
	h := newBlankHasherIDs(in, func(id int32) ([]edge, error) {
		ts, err := out(rdf.Blank(in.label(id)))
		if err != nil {
			return nil, err
		}
		es := make([]edge, len(ts))
		for i, t := range ts {
			_, es[i] = in.edge(t)
		}
		return es, nil
	})
	h.dropObjs = true
	return h
}

// newBlankHasherIDs returns a hasher over the nodes of in, whose out gives a node's outgoing
// edges.
func newBlankHasherIDs(in *interner, out func(id int32) ([]edge, error)) *blankHasher {
	return &blankHasher{in: in, out: out, num: map[int32]int32{}}
}

// hash returns blank node b's content hash. The only error is the out function's.
func (h *blankHasher) hash(b rdf.Term) (digest, error) {
	id := h.in.blankID(b.Value)
	if h.in.err != nil {
		return digest{}, h.in.err
	}
	d, err := h.hashID(id)
	if err == nil && h.in.err != nil {
		err = h.in.err
	}
	return d, err
}

// fit sizes the per-node slices to the interner's nodes.
func (h *blankHasher) fit() {
	if n := h.in.nodes(); len(h.slot) < n {
		h.slot = append(h.slot, make([]int32, n-len(h.slot))...)
	}
	if n := h.in.nodes(); h.refs != nil && len(h.refs) < n {
		h.refs = append(h.refs, make([]uint8, n-len(h.refs))...)
	}
}

// released is the slot of a node whose hash was dropped.
const released = -1

// done reports whether node id is hashed.
func (h *blankHasher) done(id int32) bool { return int(id) < len(h.slot) && h.slot[id] != 0 }

// memo returns node id's hash (zero when it is not hashed or its hash was dropped).
func (h *blankHasher) memo(id int32) digest {
	if s := h.slot[id]; s > 0 {
		return h.slab[s-1]
	}
	return digest{}
}

// setMemo records node id's hash d.
func (h *blankHasher) setMemo(id int32, d digest) {
	if n := len(h.free); n > 0 {
		i := h.free[n-1]
		h.free = h.free[:n-1]
		h.slab[i], h.slot[id] = d, i+1
		return
	}
	h.slab = append(h.slab, d)
	h.slot[id] = int32(len(h.slab))
}

// use counts one more use of node id's hash (refs); pin keeps it for good.
func (h *blankHasher) use(id int32) {
	if h.refs[id] < 254 {
		h.refs[id]++
	} else {
		h.refs[id] = 255
	}
}

func (h *blankHasher) pin(id int32) { h.refs[id] = 255 }

// release counts one use of node id's hash as done, and drops the hash after its last.
func (h *blankHasher) release(id int32) {
	switch r := h.refs[id]; {
	case r == 255 || r == 0:
		return
	case r > 1:
		h.refs[id]--
		return
	}
	h.refs[id] = 0
	if s := h.slot[id]; s > 0 {
		h.free = append(h.free, s-1)
		h.slot[id] = released
	}
}

// hashID returns node id's content hash. The only error is the out function's.
func (h *blankHasher) hashID(b int32) (digest, error) {
	if h.done(b) {
		return h.memo(b), nil
	}
	h.fit()
	defer h.endSearch()
	if err := h.visit(b); err != nil {
		return digest{}, err
	}
	for len(h.calls) > 0 {
		top := len(h.calls) - 1
		v := h.calls[top].v
		if es := h.edgesOf(v); int(h.calls[top].next) < len(es) {
			w := es[h.calls[top].next].o
			h.calls[top].next++
			if w < 0 || h.done(w) {
				continue
			}
			h.fit() // out may have numbered new nodes
			if j := h.num[w]; j == 0 {
				if err := h.visit(w); err != nil {
					return digest{}, err
				}
			} else { // visited and not hashed: on the stack
				h.nodes[v].low = min(h.nodes[v].low, j-1)
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
	return h.memo(b), nil
}

// endSearch unmarks the search's nodes one by one (most searches visit a node or two) and
// drops big state, whose capacity would otherwise stay held (a chain's one search holds every
// node of it).
func (h *blankHasher) endSearch() {
	if len(h.nodes) > 64 {
		h.num = map[int32]int32{}
	} else {
		for _, n := range h.nodes {
			delete(h.num, n.id)
		}
	}
	if h.dropObjs {
		clear(h.in.objs)
		h.in.objs = h.in.objs[:0]
	}
	if cap(h.nodes) > 64 {
		h.nodes, h.edges, h.stack, h.calls = nil, nil, nil, nil
		return
	}
	clear(h.edges)
	h.nodes, h.edges, h.stack, h.calls = h.nodes[:0], h.edges[:0], h.stack[:0], h.calls[:0]
}

// visit starts the search of node b.
func (h *blankHasher) visit(b int32) error {
	v := int32(len(h.nodes))
	if h.kept == nil {
		es, err := h.out(b)
		if err != nil {
			return err
		}
		h.edges = append(h.edges, es)
	}
	h.num[b] = v + 1
	h.nodes = append(h.nodes, searchNode{id: b, low: v})
	h.stack = append(h.stack, v)
	h.calls = append(h.calls, searchFrame{v: v})
	return nil
}

// popComponent takes the component whose root is v off Tarjan's stack and hashes it; every
// blank object outside it is hashed already.
func (h *blankHasher) popComponent(v int32) {
	h.fit()
	i := len(h.stack) - 1
	for h.stack[i] != v {
		i--
	}
	scc := h.stack[i:]
	if len(scc) == 1 && !h.selfLoop(scc[0]) {
		id := h.nodes[scc[0]].id
		h.setMemo(id, h.digestOf("node", h.edgesOf(scc[0]), nil))
	} else {
		r := newRefiner(h, scc)
		r.run()
		for i, d := range r.digests() {
			id := h.nodes[scc[i]].id
			h.setMemo(id, d)
		}
		h.refineSteps += r.steps
	}
	if h.onHashed != nil {
		h.sccIDs = h.sccIDs[:0]
		for _, w := range scc {
			h.sccIDs = append(h.sccIDs, h.nodes[w].id)
		}
		h.onHashed(h.sccIDs)
	}
	if h.kept == nil {
		for _, w := range scc {
			h.edges[w] = nil
		}
	}
	h.stack = h.stack[:i]
}

func (h *blankHasher) selfLoop(v int32) bool {
	for _, e := range h.edgesOf(v) {
		if e.o == h.nodes[v].id {
			return true
		}
	}
	return false
}

// digestOf hashes tag and the sorted distinct lines "<predicate> object" of the outgoing
// edges es. A blank object is written as "_:" when inside says it is in the component being
// hashed (inside, by node number, may be nil), else as "_:" and its hash from memo.
func (h *blankHasher) digestOf(tag string, es []edge, inside map[int32]int32) digest {
	lines := make([]string, 0, len(es))
	var b []byte
	for _, e := range es {
		b = append(append(b[:0], h.in.preds[e.p]...), ' ')
		switch _, in := inside[e.o]; {
		case e.o < 0:
			b = append(b, h.in.object(e)...)
		case in:
			b = append(b, "_:"...)
		default:
			d := h.memo(e.o)
			b = hex.AppendEncode(append(b, "_:"...), d[:])
		}
		lines = append(lines, string(b))
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
