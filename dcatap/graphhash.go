package dcatap

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"

	"github.com/harvester-dev/harvester/rdf"
)

// GraphHash returns a fingerprint of a whole source graph (64 lower-case hex digits) for the
// "not modified" skip: the same graph re-serialized, re-ordered or with its blank nodes
// relabelled gives the same value, and any change to a triple gives another one (but for the
// blank-node merge below). It reads g through Match in one pass plus one lookup per blank node,
// and holds one 32-byte hash per blank node, never the triples.
//
// How: each triple is written as its N-Triples line with every blank node replaced by the
// node's content hash (the one Skolemize uses: a Merkle hash of its outgoing triples, cycles by
// partition refinement), each line is hashed with SHA-256, and the hashes are added modulo
// 2^256 (a multiset hash: order-free and streaming, so no sort of a million lines and no
// URDNA2015, whose cost grows much faster). The value is SHA-256 of "dcatap graph v1", that sum
// and the triple count. Blank nodes with identical content hash alike, so two graphs that differ
// only in how many identical blank nodes they hold (`<d> :p [ :q 1 ], [ :q 1 ]` against
// `<d> :p [ :q 1 ]`) may be told apart or not; both skolemize to the same records, so the skip
// never hides a change that per-record change detection would see. Record and catalog
// source_hashes are not an input: the fingerprint can be checked before splitting, and then
// splitting is what a "not modified" source saves. It is a change detector, not a defence against
// a publisher crafting collisions.
func GraphHash(g rdf.Graph) (string, error) {
	h := newBlankHasher(func(b rdf.Term) ([]rdf.Triple, error) {
		var ts []rdf.Triple
		err := g.Match(b, rdf.Term{}, rdf.Term{}, func(t rdf.Triple) error {
			ts = append(ts, t)
			return nil
		})
		return ts, err
	})
	var sum [4]uint64 // little-endian limbs of a 256-bit number
	var count uint64
	term := func(t rdf.Term) (string, error) {
		if !t.IsBlank() {
			return t.NTriples(), nil
		}
		d, err := h.hash(t)
		if err != nil {
			return "", err
		}
		return "_:" + hex.EncodeToString(d[:]), nil
	}
	err := g.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(t rdf.Triple) error {
		s, err := term(t.S)
		if err != nil {
			return err
		}
		o, err := term(t.O)
		if err != nil {
			return err
		}
		d := sha256.Sum256([]byte(s + " " + t.P.NTriples() + " " + o + " ."))
		var carry uint64
		for i := range 4 {
			sum[i], carry = bits.Add64(sum[i], binary.LittleEndian.Uint64(d[8*i:]), carry)
		}
		count++
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("graph hash: %w", err)
	}
	f := sha256.New()
	f.Write([]byte("dcatap graph v1\n"))
	var buf [8]byte
	for _, limb := range sum {
		binary.LittleEndian.PutUint64(buf[:], limb)
		f.Write(buf[:])
	}
	binary.LittleEndian.PutUint64(buf[:], count)
	f.Write(buf[:])
	return hex.EncodeToString(f.Sum(nil)), nil
}
