package dcatap

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"

	"github.com/harvester-dev/harvester/rdf"
)

// graphHashKeptTriples caps the triples with a blank subject that GraphHash keeps in memory
// from its first pass (about 250 bytes each), so that hashing a node does not look its triples up
// in the graph again (on a graph spilled to disk, a query per blank node was most of the time).
// Past it, every node's triples are looked up.
var graphHashKeptTriples = 2_000_000 // a variable so that tests can lower it

// GraphHash returns a fingerprint of a whole source graph (64 lower-case hex digits) for the
// "not modified" skip: the same graph re-serialized, re-ordered or with its blank nodes
// relabelled gives the same value, and any change to a triple gives another one (but for the
// blank-node merge below). It reads g through Match in two passes (never from inside a Match
// callback) and holds one 32-byte hash per blank node and the triples whose subject is a blank
// node, up to graphHashKeptTriples (2,000,000); past that it holds none of them and looks each
// blank node's triples up in g (one Match per node: slow on a graph spilled to disk).
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
	// Pass 1: triples without blank nodes, which blank nodes there are, and (up to
	// graphHashKeptTriples) the blank nodes' triples.
	blanks, kept, err := graphHashGround(g, &m)
	if err != nil {
		return "", fmt.Errorf("graph hash: %w", err)
	}
	h := newBlankHasher(func(b rdf.Term) ([]rdf.Triple, error) {
		if kept != nil { // each node is read once: the search holds its triples from then on
			ts := kept[b]
			delete(kept, b)
			return ts, nil
		}
		var ts []rdf.Triple
		err := g.Match(b, rdf.Term{}, rdf.Term{}, func(t rdf.Triple) error {
			ts = append(ts, t)
			return nil
		})
		return ts, err
	})
	// Pass 2: each blank node's content hash.
	for b := range blanks {
		if _, err := h.hash(b); err != nil {
			return "", fmt.Errorf("graph hash: %w", err)
		}
	}
	blanks = nil
	// Pass 3: triples with blank nodes, each written with the nodes' hashes.
	term := func(t rdf.Term) string {
		if !t.IsBlank() {
			return t.NTriples()
		}
		d := h.memo[t]
		return "_:" + hex.EncodeToString(d[:])
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

// graphHashGround adds g's triples without blank nodes to m and returns the blank nodes and
// the triples whose subject is a blank node (nil when there are more than
// graphHashKeptTriples). Match is never called from inside a Match callback, so any Graph (a
// disk store's cursor) serves.
func graphHashGround(g rdf.Graph, m *multisetHash) (map[rdf.Term]struct{}, map[rdf.Term][]rdf.Triple, error) {
	blanks := map[rdf.Term]struct{}{}
	kept := map[rdf.Term][]rdf.Triple{}
	nKept := 0
	err := g.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(t rdf.Triple) error {
		if !t.S.IsBlank() && !t.O.IsBlank() {
			m.add(t.NTriples())
			return nil
		}
		if t.S.IsBlank() && kept != nil {
			if nKept++; nKept > graphHashKeptTriples {
				kept = nil
			} else {
				kept[t.S] = append(kept[t.S], t)
			}
		}
		for _, x := range [2]rdf.Term{t.S, t.O} {
			if x.IsBlank() {
				blanks[x] = struct{}{}
			}
		}
		return nil
	})
	return blanks, kept, err
}

// multisetHash is GraphHash's sum: the SHA-256 of each line added modulo 2^256, and the count
// of lines.
type multisetHash struct {
	sum   [4]uint64 // little-endian limbs of a 256-bit number
	count uint64
}

func (m *multisetHash) add(line string) {
	d := sha256.Sum256([]byte(line))
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
