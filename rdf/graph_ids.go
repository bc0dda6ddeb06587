package rdf

// The compact store's terms by id: a reader that walks the graph by subject over and over (a
// record's closure, dcatap.Split) keeps its sets of terms as ids and walks by ids, so that the
// table that finds a term's id by its value can be freed while it does.

import (
	"errors"
	"math"
)

var errNoTerm = errors.New("rdf: no term with that id in the graph")

// NoID is the wildcard of TermIDs.MatchIDs: no term has it.
const NoID = math.MaxUint32

// IDTriple is a triple of term ids (TermIDs).
type IDTriple struct{ S, P, O uint32 }

// TermIDs is a graph's terms numbered by ids, and its triples walked by them.
type TermIDs interface {
	// TermID returns t's id, ok=false when the graph has no such term. It needs the table that
	// finds a term by value, which DropTermIndex frees: a TermID after it makes the table again.
	TermID(t Term) (id uint32, ok bool, err error)
	// TermOf returns the term of id (an id of this graph's TermID or MatchIDs).
	TermOf(id uint32) (Term, error)
	// MatchIDs walks the triples matching (s, p, o), NoID a wildcard, as Graph.Match walks them
	// (the same order); fn may call MatchIDs and TermOf, not Add; its error stops the walk and
	// is returned, as are the graph's own (a read of its file).
	MatchIDs(s, p, o uint32, fn func(IDTriple) error) error
	// DropTermIndex frees what TermID needs (for NewGraph's graph on disk, 10 bytes a term: 31
	// MiB for the 3.15 million terms of a 209,715-dataset catalog) until the next TermID, Add,
	// or Match by a term.
	DropTermIndex()
}

// IDGraph is implemented by a Graph that numbers its terms itself, as NewGraph's graph does
// once it has spilled to disk (it interns every term as a 32-bit id).
type IDGraph interface {
	// TermIDs returns the graph's ids, ok=false when it has none (NewGraph's graph while it is
	// in memory: use Match). They stay valid until the graph is closed.
	TermIDs() (TermIDs, bool)
}

// TermIDs is IDGraph's: ok=false while g is in memory.
func (g *spillGraph) TermIDs() (TermIDs, bool) {
	if g.disk == nil {
		return nil, false
	}
	return diskIDs{g.disk}, true
}

// diskIDs is the TermIDs of a diskGraph.
type diskIDs struct{ d *diskGraph }

func (v diskIDs) TermID(t Term) (uint32, bool, error) { return v.d.lookup(t) }
func (v diskIDs) TermOf(id uint32) (Term, error) {
	if int64(id) >= int64(v.d.terms) {
		return Term{}, errNoTerm
	}
	return v.d.term(id)
}
func (v diskIDs) DropTermIndex() { v.d.dropIndex() }

func (v diskIDs) MatchIDs(s, p, o uint32, fn func(IDTriple) error) error {
	d := v.d
	if d.err != nil {
		return d.err
	}
	if err := d.sort(); err != nil {
		return err
	}
	low := func(a, b uint32) uint64 {
		if b == NoID {
			return uint64(a) << 32
		}
		return uint64(a)<<32 | uint64(b)
	}
	switch {
	case s != NoID:
		if w := int(s >> 6); w >= len(d.subjects) || d.subjects[w]&(1<<(s&63)) == 0 {
			return nil
		}
		return d.walk(&d.spo, low(s, p), func(tr idTriple) (bool, error) {
			if tr.s != s || p != NoID && tr.p != p {
				return false, nil
			}
			if o != NoID && tr.o != o {
				return true, nil
			}
			return true, fn(IDTriple{tr.s, tr.p, tr.o})
		})
	case o != NoID:
		if err := d.objects(); err != nil {
			return err
		}
		return d.walk(&d.ops, low(o, p), func(tr idTriple) (bool, error) {
			if tr.s != o || p != NoID && tr.p != p {
				return false, nil
			}
			return true, fn(IDTriple{tr.o, tr.p, tr.s})
		})
	default:
		return d.walk(&d.spo, 0, func(tr idTriple) (bool, error) {
			if p != NoID && tr.p != p {
				return true, nil
			}
			return true, fn(IDTriple{tr.s, tr.p, tr.o})
		})
	}
}
