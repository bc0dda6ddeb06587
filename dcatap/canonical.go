package dcatap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/harvester-dev/harvester/rdf"
)

// Canonical returns the canonical N-Quads of a record graph without blank nodes (Skolemize
// first) and its source_hash. With no blank nodes, RDF Dataset Canonicalization (URDNA2015)
// relabels nothing, so the canonical form is the distinct N-Triples lines of ts (in the default
// graph, canonical escaping as rdf.Triple.NTriples writes it), each ending in "\n", sorted in
// code-point (byte) order. sourceHash is the lower-case hex SHA-256 of nquads (a record's
// stored source_hash is SourceHash, which spells skolem IRIs as earlier releases did). An empty ts gives
// empty nquads and the hash of nothing. The error names the first triple that has a blank node
// (wrapping ErrBlankNode) or a term that cannot be where it is (a literal or no term as subject,
// a non-IRI predicate, no object), wrapping ErrInvalidTriple.
func Canonical(ts []rdf.Triple) (nquads []byte, sourceHash string, err error) {
	lines := make([]string, 0, len(ts))
	size := 0
	for _, t := range ts {
		if err := checkTriple(t); err != nil {
			return nil, "", err
		}
		l := t.NTriples()
		lines = append(lines, l)
		size += len(l) + 1
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	var b bytes.Buffer
	b.Grow(size)
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	sum := sha256.Sum256(b.Bytes())
	return b.Bytes(), hex.EncodeToString(sum[:]), nil
}

func checkTriple(t rdf.Triple) error {
	switch {
	case t.S.IsBlank() || t.O.IsBlank():
		return fmt.Errorf("%w: %s", ErrBlankNode, t.NTriples())
	case !t.S.IsIRI():
		return fmt.Errorf("%w: subject %q is not an IRI", ErrInvalidTriple, t.S.NTriples())
	case !t.P.IsIRI():
		return fmt.Errorf("%w: predicate %q is not an IRI", ErrInvalidTriple, t.P.NTriples())
	case t.O.IsZero():
		return fmt.Errorf("%w: no object in %s", ErrInvalidTriple, t.NTriples())
	}
	return nil
}
