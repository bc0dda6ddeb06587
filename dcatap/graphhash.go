package dcatap

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/harvester-dev/harvester/rdf"
)

// graphHashKeptBytes caps the memory of the triples with a blank node that GraphHash keeps from
// its first pass, interned (an edge: 12 bytes; an object that is not a blank node, or a subject
// that is not, 16 more and its N-Triples text), so that hashing a node does not look its triples
// up in the graph again (on a graph spilled to disk, a query per blank node was most of the time)
// and the third pass does not read the graph again. Past it, every node's triples are looked up.
// A cap of 2,000,000 triples sent the 250 MB JSON-LD chain of 5,000,000 blank nodes, whose kept
// edges take 60 MB, down the slow path (BenchmarkRDFJSONLD250MB).
var graphHashKeptBytes = 128 << 20 // a variable so that tests can lower it

// GraphHash returns a fingerprint of a whole source graph (64 lower-case hex digits) for the
// "not modified" skip: the same graph re-serialized, re-ordered or with its blank nodes
// relabelled gives the same value, and any change to a triple gives another one (but for the
// blank-node merge below). It reads g through Match (never from inside a Match callback), or
// through rdf.BlankIDMatcher's MatchBlankIDs when g numbers its blank nodes itself (NewGraph's
// graph spilled to disk), and holds, per blank node, a number (the graph's own, else the labels
// interned as integers in a compact table, about 20 bytes a label, until the first pass ends;
// the 5 million labels of a 271 MB JSON-LD chain took 112 MiB) and its 32-byte hash while
// a blank node not hashed yet has an arc to it (a chain holds a hash or two); and the
// triples that have a blank node, interned (8 bytes an edge, and 4 a node when the graph gives
// a node's triples together and in the order of the numbers, as the spill store does; 4 more an
// edge otherwise), up to graphHashKeptBytes (128 MiB), but for those of
// a leaf: a blank node whose triples come together in g's scan (as the spill store's do) and
// have no blank object is hashed, and its triples summed, as they pass (a catalog's
// distributions and contact points keep nothing). Past the cap it holds none of them, looks
// each blank node's triples up in g (one Match per node: slow on a graph spilled to disk) and
// reads g a second time (and holds every node's hash). A chain of 1,000,000 blank nodes peaks
// at 44 MiB of live heap by labels (TestGraphHashChainMemory); spilled, 22 MiB by the graph's
// numbers where its labels took 39 (TestGraphHashSpilledChainMemory).
//
// How: each triple is written as its N-Triples line with every blank node replaced by the
// node's content hash (the one Skolemize uses: a Merkle hash of its outgoing triples, cycles by
// canonical colour refinement; time O((n+m) log n) and memory linear in the blank nodes, a chain
// of a million blank nodes or a ring of 100,000 included), each line is hashed with SHA-256, and
// the hashes are added modulo 2^256 (a multiset hash: order-free and streaming, so no sort of a
// million lines and no
// URDNA2015, whose cost grows much faster). The value is SHA-256 of "dcatap graph v1", that sum
// and the triple count. Blank nodes with identical content hash alike, so two graphs that differ
// only in how many identical blank nodes they hold (`<d> :p [ :q 1 ], [ :q 1 ]` against
// `<d> :p [ :q 1 ]`) may be told apart or not; both skolemize to the same records, so the skip
// never hides a change that per-record change detection would see. Record and catalog
// source_hashes are not an input: the fingerprint can be checked before splitting, and then
// splitting is what a "not modified" source saves. It is a change detector, not a defence against
// a publisher crafting collisions.
func GraphHash(g rdf.Graph) (string, error) {
	sum, err := graphHash(g, true)
	if errors.Is(err, errNotGrouped) {
		sum, err = graphHash(g, false)
	}
	if err != nil {
		return "", fmt.Errorf("graph hash: %w", err)
	}
	return sum, nil
}

// errNotGrouped stops graphHash's first pass when a blank subject's triples do not come
// together.
var errNotGrouped = errors.New("a blank node's triples do not come together")

// graphHash is GraphHash. With leaves, a blank node whose triples come together in g's scan
// (as the spill store's do, by subject) and have no blank object is hashed as its triples pass,
// and its triples are summed then, so that none is kept (a catalog's distributions and contact
// points); it returns errNotGrouped when a blank subject's triples turn out not to come together.
func graphHash(g rdf.Graph, leaves bool) (string, error) {
	var m multisetHash
	in := newInterner()
	sc := newGraphScan(g, in)
	h := newBlankHasherIDs(in, nil)
	node := func(b []byte, id int32) []byte {
		d := h.memo(id)
		return hex.AppendEncode(append(b, "_:"...), d[:])
	}
	line := func(b []byte, e edge) []byte { // b holds the subject
		b = append(append(append(b, ' '), in.preds[e.p]...), ' ')
		if e.o >= 0 {
			b = node(b, e.o)
		} else {
			b = append(b, in.object(e)...)
		}
		return append(b, " ."...)
	}
	// Pass 1: triples without blank nodes, which blank nodes there are, the leaves (with
	// leaves), and (up to graphHashKeptBytes) the other triples with blank nodes.
	h.refs = []uint8{} // counted while the triples are kept
	p := &groundPass{m: &m, in: in, h: h, leaves: leaves, line: line, node: node}
	kept, err := p.run(sc)
	if err == nil {
		err = in.err
	}
	if err != nil {
		return "", err
	}
	out := func(id int32) ([]edge, error) { return kept.of(id), nil }
	if kept == nil {
		out = func(id int32) ([]edge, error) {
			var es []edge
			err := sc.match(id, func(t rdf.Triple, _, o int32) error {
				es = append(es, in.edgeTo(t, o))
				return nil
			})
			return es, err
		}
	}
	h.out = out
	h.dropObjs = kept == nil
	if kept != nil {
		h.kept = kept.of
		// A component's triples are summed as it is hashed; then its nodes' arcs have used
		// their objects' hashes.
		var b []byte
		h.onHashed = func(ids []int32) {
			for _, id := range ids {
				for _, e := range kept.of(id) {
					b = line(node(b[:0], id), e)
					m.addBytes(b)
				}
			}
			for _, id := range ids {
				for _, e := range kept.of(id) {
					if e.o >= 0 {
						h.release(e.o)
					}
				}
			}
		}
	}
	// Pass 2: each blank node's content hash, the last numbered first: a node is numbered when
	// first seen, and a chain's next node is mostly seen after it, so that each search finds the
	// next one hashed and visits one node, where starting from the first node one search held
	// the whole chain (20 bytes a node in Tarjan's stacks). The hashes do not depend on the order.
	for id := int32(in.nodes()) - 1; id >= 0; id-- {
		if _, err := h.hashID(id); err != nil {
			return "", err
		}
	}
	if in.err != nil {
		return "", in.err
	}
	// Pass 3: triples with blank nodes, each written with the nodes' hashes (a leaf's are summed).
	if err := p.sumBlankTriples(sc, kept); err != nil {
		return "", err
	}
	return m.value(), nil
}

// sumBlankTriples is graphHash's third pass: it adds the triples with a blank node that pass 1
// and 2 did not, each written with the nodes' hashes: kept's into, or (kept nil) every one
// read from g again but for the leaves'.
func (p *groundPass) sumBlankTriples(sc *graphScan, kept *keptTriples) error {
	m, line, node := p.m, p.line, p.node
	var b []byte
	if kept != nil { // the triples of blank subjects are summed (onHashed)
		for _, t := range kept.into {
			b = line(append(b[:0], t.s...), t.edge)
			m.addBytes(b)
		}
		return nil
	}
	term := func(t rdf.Term, id int32) string {
		if id < 0 {
			return t.NTriples()
		}
		return string(node(nil, id))
	}
	return sc.match(-1, func(t rdf.Triple, s, o int32) error {
		if p.leaf.has(s) {
			return nil // summed in pass 1
		}
		if s >= 0 || o >= 0 {
			m.add(term(t.S, s) + " " + t.P.NTriples() + " " + term(t.O, o) + " .")
		}
		return nil
	})
}

// keptTriples are GraphHash's triples with a blank node, interned: edges, those with a blank
// subject, ordered by subject (a node's are edges[start[id]:start[id+1]]); into, those with an
// IRI subject and a blank object.
type keptTriples struct {
	edges []edge
	start []int32
	into  []intoTriple
}

// intoTriple is a triple with an IRI subject (s, in N-Triples) and a blank object.
type intoTriple struct {
	s string
	edge
}

// of returns node id's edges.
func (k *keptTriples) of(id int32) []edge {
	if int(id)+1 >= len(k.start) {
		return nil
	}
	return k.edges[k.start[id]:k.start[id+1]:k.start[id+1]]
}

// bitset is a set of node numbers.
type bitset []uint64

func (b bitset) has(id int32) bool {
	return id >= 0 && int(id>>6) < len(b) && b[id>>6]&(1<<(id&63)) != 0
}

func (b *bitset) set(id int32) {
	if w := int(id >> 6); w >= len(*b) {
		*b = append(*b, make([]uint64, w+1-len(*b)+len(*b)/4)...)
	}
	(*b)[id>>6] |= 1 << (id & 63)
}

// groundPass is GraphHash's first pass over g (graphHash says what it does).
type groundPass struct {
	m      *multisetHash
	in     *interner
	h      *blankHasher
	leaves bool
	line   func(b []byte, e edge) []byte
	node   func(b []byte, id int32) []byte
	// The run of triples of one blank subject being read: its number (-1: none), edges,
	// whether one has a blank object, and where its objects start in in.objs.
	cur      int32
	runEdges []edge
	inner    bool
	objMark  int
	ran      bitset // blank subjects whose run has ended
	leaf     bitset // blank subjects hashed and summed as leaves
	buf      []byte
	// What is kept: nil past graphHashKeptBytes. While the kept runs come in increasing order
	// of their subjects' numbers (as a graph that numbers its blank nodes gives them: by
	// subject id), a node's edges are found from k.start as they are appended; once a run comes
	// out of that order, subjects holds each edge's node and run orders the edges at the end.
	k         *keptTriples
	edges     []edge
	lastRun   int32
	unordered bool
	subjects  []int32 // edges[i]'s subject, when unordered
	n         int     // bytes kept
}

// run reads the graph and returns the kept triples (nil when there are more than
// graphHashKeptBytes). Match is never called from inside a Match callback, so any Graph (a
// disk store's cursor) serves.
func (p *groundPass) run(sc *graphScan) (*keptTriples, error) {
	p.k, p.cur, p.lastRun = &keptTriples{}, -1, -1
	in := p.in
	err := sc.match(-1, func(t rdf.Triple, s, o int32) error {
		if p.cur >= 0 && s != p.cur {
			p.endRun()
		}
		if s < 0 && o < 0 {
			p.buf = t.AppendNTriples(p.buf[:0])
			p.m.addBytes(p.buf)
			return nil
		}
		if p.cur < 0 && p.n > graphHashKeptBytes && p.k != nil {
			p.k, p.edges, p.subjects, in.objs, p.h.refs = nil, nil, nil, nil, nil // the numbers stay
		}
		if s >= 0 && p.cur < 0 {
			if p.ran.has(s) && p.leaves {
				return errNotGrouped
			}
			p.cur, p.inner, p.objMark = s, false, len(in.objs)
		}
		if s >= 0 && (p.leaves || p.k != nil) {
			p.runEdges = append(p.runEdges, in.edgeTo(t, o))
			p.inner = p.inner || o >= 0
			return nil
		}
		if p.k == nil {
			return nil
		}
		e := in.edgeTo(t, o) // an IRI subject, a blank object
		p.h.fit()
		p.h.pin(e.o) // summed at the end
		p.k.into = append(p.k.into, intoTriple{s: t.S.NTriples(), edge: e})
		p.n += 12 + 16 + len(p.k.into[len(p.k.into)-1].s)
		return nil
	})
	if err == nil && p.cur >= 0 {
		p.endRun()
	}
	if err != nil || p.k == nil {
		return nil, err
	}
	in.dropLabels() // with the triples kept, no node is looked up by its label again
	p.order()
	return p.k, nil
}

// keep adds node id's run of edges es to what is kept (groundPass says how).
func (p *groundPass) keep(id int32, es []edge) {
	k := p.k
	if !p.unordered && id > p.lastRun {
		for int32(len(k.start)) <= id {
			k.start = append(k.start, int32(len(p.edges)))
		}
		p.lastRun = id
		p.edges = append(p.edges, es...)
		return
	}
	if !p.unordered { // the first run out of order: each edge kept so far gets its node
		p.unordered = true
		p.subjects = make([]int32, len(p.edges), cap(p.edges))
		end := int32(len(p.edges))
		for node := int32(len(k.start)) - 1; node >= 0; node-- {
			for j := k.start[node]; j < end; j++ {
				p.subjects[j] = node
			}
			end = k.start[node]
		}
		k.start = nil
	}
	for _, e := range es {
		p.edges, p.subjects = append(p.edges, e), append(p.subjects, id)
	}
}

// order makes k.edges and k.start from the edges kept: in place when their runs came in
// order, else by a counting sort by subject that keeps each node's edges in the order read.
func (p *groundPass) order() {
	k, nodes := p.k, p.in.nodes()
	defer func() { p.edges, p.subjects = nil, nil }()
	if !p.unordered {
		for len(k.start) <= nodes {
			k.start = append(k.start, int32(len(p.edges)))
		}
		k.edges = p.edges
		return
	}
	k.start = make([]int32, nodes+1)
	for _, s := range p.subjects {
		k.start[s+1]++
	}
	for i := 1; i < len(k.start); i++ {
		k.start[i] += k.start[i-1]
	}
	next := slices.Clone(k.start[:len(k.start)-1])
	k.edges = make([]edge, len(p.edges))
	for i, e := range p.edges {
		k.edges[next[p.subjects[i]]] = e
		next[p.subjects[i]]++
	}
}

// endRun ends the run of the current blank subject: a leaf (no blank object) is hashed and its
// triples summed, with leaves; another's triples are kept, while under graphHashKeptBytes.
func (p *groundPass) endRun() {
	id := p.cur
	p.cur = -1
	p.ran.set(id)
	defer func() { p.runEdges = p.runEdges[:0] }()
	if p.leaves && !p.inner {
		p.h.fit()
		p.h.setMemo(id, p.h.digestOf("node", p.runEdges, nil))
		for _, e := range p.runEdges {
			p.buf = p.line(p.node(p.buf[:0], id), e)
			p.m.addBytes(p.buf)
		}
		p.leaf.set(id)
		clear(p.in.objs[p.objMark:])
		p.in.objs = p.in.objs[:p.objMark]
		return
	}
	if p.k == nil {
		clear(p.in.objs[p.objMark:])
		p.in.objs = p.in.objs[:p.objMark]
		return
	}
	p.h.fit()
	p.keep(id, p.runEdges)
	for _, e := range p.runEdges {
		p.n += 12
		if e.o < 0 {
			p.n += 16 + len(p.in.object(e))
		} else {
			p.h.use(e.o)
		}
	}
}

// multisetHash is GraphHash's sum: the SHA-256 of each line added modulo 2^256, and the count
// of lines.
type multisetHash struct {
	sum   [4]uint64 // little-endian limbs of a 256-bit number
	count uint64
}

func (m *multisetHash) add(line string) { m.addBytes([]byte(line)) }

func (m *multisetHash) addBytes(line []byte) {
	d := sha256.Sum256(line)
	var carry uint64
	for i := range 4 {
		m.sum[i], carry = bits.Add64(m.sum[i], binary.LittleEndian.Uint64(d[8*i:]), carry)
	}
	m.count++
}

// value is the hex SHA-256 of "dcatap graph v1\n", the sum and the count.
func (m *multisetHash) value() string {
	f := sha256.New()
	f.Write([]byte("dcatap graph v1\n"))
	var buf [8]byte
	for _, limb := range m.sum {
		binary.LittleEndian.PutUint64(buf[:], limb)
		f.Write(buf[:])
	}
	binary.LittleEndian.PutUint64(buf[:], m.count)
	f.Write(buf[:])
	return hex.EncodeToString(f.Sum(nil))
}
