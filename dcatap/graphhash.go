package dcatap

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
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
// blank-node merge below). It reads g through Match (never from inside a Match callback) and
// holds, per blank node, its label, a number (the blank nodes are interned as integers), a
// 32-byte hash and a search number, about 100 bytes a node; and the triples that have a blank
// node, interned, up to graphHashKeptBytes (128 MiB). Past that it holds none of them, looks
// each blank node's triples up in g (one Match per node: slow on a graph spilled to disk) and
// reads g a second time. A chain of 1,000,000 blank nodes peaks at 205–217 MiB of live heap
// (TestGraphHashChainMemory).
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
	var m multisetHash
	in := newInterner()
	// Pass 1: triples without blank nodes, which blank nodes there are, and (up to
	// graphHashKeptBytes) the triples with blank nodes.
	kept, err := graphHashGround(g, &m, in)
	if err == nil {
		err = in.err
	}
	if err != nil {
		return "", fmt.Errorf("graph hash: %w", err)
	}
	out := func(id int32) ([]edge, error) { return kept.of(id), nil }
	if kept == nil {
		out = func(id int32) ([]edge, error) {
			var es []edge
			err := g.Match(rdf.Blank(in.label(id)), rdf.Term{}, rdf.Term{}, func(t rdf.Triple) error {
				_, e := in.edge(t)
				es = append(es, e)
				return nil
			})
			return es, err
		}
	}
	h := newBlankHasherIDs(in, out)
	h.dropObjs = kept == nil
	if kept != nil {
		h.kept = kept.of
	}
	// Pass 2: each blank node's content hash, the last numbered first: a node is numbered when
	// first seen, and a chain's next node is mostly seen after it, so that each search finds the
	// next one hashed and visits one node, where starting from the first node one search held
	// the whole chain (20 bytes a node in Tarjan's stacks). The hashes do not depend on the order.
	for id := int32(in.nodes()) - 1; id >= 0; id-- {
		if _, err := h.hashID(id); err != nil {
			return "", fmt.Errorf("graph hash: %w", err)
		}
	}
	if in.err != nil {
		return "", fmt.Errorf("graph hash: %w", in.err)
	}
	// Pass 3: triples with blank nodes, each written with the nodes' hashes.
	var b []byte
	node := func(b []byte, id int32) []byte {
		d := h.memo[id]
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
	if kept != nil {
		for id := range int32(in.nodes()) {
			for _, e := range kept.of(id) {
				b = line(node(b[:0], id), e)
				m.addBytes(b)
			}
		}
		for _, t := range kept.into {
			b = line(append(b[:0], t.s...), t.edge)
			m.addBytes(b)
		}
		return m.value(), nil
	}
	term := func(t rdf.Term) string {
		if !t.IsBlank() {
			return t.NTriples()
		}
		id, _ := in.blank.lookup(t.Value)
		return string(node(nil, id))
	}
	err = g.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(t rdf.Triple) error {
		if t.S.IsBlank() || t.O.IsBlank() {
			m.add(term(t.S) + " " + t.P.NTriples() + " " + term(t.O) + " .")
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("graph hash: %w", err)
	}
	return m.value(), nil
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

// graphHashGround adds g's triples without blank nodes to m, numbers the blank nodes in in,
// and returns the triples with a blank node (nil when there are more than
// graphHashKeptBytes). Match is never called from inside a Match callback, so any Graph (a
// disk store's cursor) serves.
func graphHashGround(g rdf.Graph, m *multisetHash, in *interner) (*keptTriples, error) {
	k := &keptTriples{}
	var edges []edge
	var subjects []int32 // edges[i]'s subject
	n := 0               // bytes kept
	var line []byte
	err := g.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(t rdf.Triple) error {
		if !t.S.IsBlank() && !t.O.IsBlank() {
			line = t.AppendNTriples(line[:0])
			m.addBytes(line)
			return nil
		}
		if n > graphHashKeptBytes && k != nil {
			k, edges, subjects, in.objs = nil, nil, nil, nil // the numbers stay
		}
		if k == nil {
			if t.S.IsBlank() {
				in.blankID(t.S.Value)
			}
			if t.O.IsBlank() {
				in.blankID(t.O.Value)
			}
			return nil
		}
		s, e := in.edge(t)
		n += 12
		if e.o < 0 {
			n += 16 + len(in.object(e))
		}
		if s >= 0 {
			edges, subjects = append(edges, e), append(subjects, s)
		} else {
			k.into = append(k.into, intoTriple{s: t.S.NTriples(), edge: e})
			n += 16 + len(k.into[len(k.into)-1].s)
		}
		return nil
	})
	if err != nil || k == nil {
		return nil, err
	}
	in.dropLabels() // with the triples kept, no node is looked up by its label again
	// Order the edges by subject, keeping each node's in the order read (a counting sort).
	k.start = make([]int32, in.nodes()+1)
	for _, s := range subjects {
		k.start[s+1]++
	}
	for i := 1; i < len(k.start); i++ {
		k.start[i] += k.start[i-1]
	}
	next := slices.Clone(k.start[:len(k.start)-1])
	k.edges = make([]edge, len(edges))
	for i, e := range edges {
		k.edges[next[subjects[i]]] = e
		next[subjects[i]]++
	}
	return k, nil
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
