package rdf

// The compact store's blank node numbers: its blank terms numbered 0, 1, … in the order of their
// term ids (a bit a term and 4 bytes every 64 terms), so that a reader that keeps per-node state
// (dcatap.GraphHash) needs no table of the labels of its own.

import (
	"errors"
	"math"
	"math/bits"
)

// BlankIDMatcher is implemented by a Graph that numbers its blank nodes itself, as NewGraph's
// graph does once it has spilled to disk (it interns every term as an id already): a reader that
// keeps state per blank node can use those numbers where it would otherwise number the labels
// again (dcatap.GraphHash: 20 bytes and the label's bytes a node, 112 MiB for the 5 million
// blank nodes of a 271 MB JSON-LD chain).
type BlankIDMatcher interface {
	// MatchBlankIDs walks the triples whose subject is blank node subject (its number), or
	// every triple when subject < 0, as Match does (the same order; fn may call Match, not
	// Add), and gives fn with each triple the numbers of its subject and object, -1 for a term
	// that is not a blank node. Numbers are 0 … n-1 for the graph's n distinct blank nodes, the
	// same term always the same number; adding triples numbers the new blank nodes after the
	// others. ok=false, with nothing walked, when the graph does not number its blank nodes
	// (NewGraph's graph while it is in memory: use Match); fn's error stops the walk and is
	// returned, as are the graph's own (a read of its file).
	MatchBlankIDs(subject int32, fn func(t Triple, s, o int32) error) (ok bool, err error)
}

// MatchBlankIDs is BlankIDMatcher's: ok=false while g is in memory.
func (g *spillGraph) MatchBlankIDs(subject int32, fn func(t Triple, s, o int32) error) (bool, error) {
	if g.disk == nil {
		return false, nil
	}
	return true, g.disk.matchBlankIDs(subject, fn)
}

// blankTerms is the compact store's blank terms: bit id of set is set when term id is a blank
// node, and rank[w] counts the bits set in set[:w], for the words that rankedWords says are
// counted (the ranks are made again when terms are added).
type blankTerms struct {
	set         []uint64
	rank        []uint32
	rankedWords int
}

// mark records that term id is a blank node.
func (b *blankTerms) mark(id uint32) {
	if w := int(id >> 6); w >= len(b.set) {
		b.set = append(b.set, make([]uint64, w+1-len(b.set)+len(b.set)/4)...)
	}
	b.set[id>>6] |= 1 << (id & 63)
	b.rankedWords = min(b.rankedWords, int(id>>6)+1) // rank[w+1:] change
}

// count makes the ranks; it fails past math.MaxInt32-1 blank nodes.
func (b *blankTerms) count() error {
	if b.rankedWords == len(b.set) && len(b.rank) == len(b.set) {
		return nil
	}
	if cap(b.rank) < len(b.set) {
		b.rank = append(b.rank[:cap(b.rank)], make([]uint32, len(b.set)-cap(b.rank))...)
	}
	b.rank = b.rank[:len(b.set)]
	n := uint64(0)
	if w := b.rankedWords; w > 0 {
		n = uint64(b.rank[w-1]) + uint64(bits.OnesCount64(b.set[w-1]))
	}
	for w := b.rankedWords; w < len(b.set); w++ {
		b.rank[w] = uint32(n)
		n += uint64(bits.OnesCount64(b.set[w]))
	}
	if n > math.MaxInt32-1 {
		return errors.New("rdf: graph spill: more than 2,147,483,646 blank nodes")
	}
	b.rankedWords = len(b.set)
	return nil
}

// number returns term id's blank node number, -1 when it is not a blank node (count has run).
func (b *blankTerms) number(id uint32) int32 {
	w := int(id >> 6)
	if w >= len(b.set) || b.set[w]&(1<<(id&63)) == 0 {
		return -1
	}
	return int32(b.rank[w]) + int32(bits.OnesCount64(b.set[w]&(1<<(id&63)-1)))
}

// term returns the term id of blank node n, ok=false when there is none (count has run).
func (b *blankTerms) term(n int32) (uint32, bool) {
	if n < 0 || len(b.rank) == 0 {
		return 0, false
	}
	lo, hi := 0, len(b.rank) // the last word whose rank is at most n
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if int64(b.rank[mid]) <= int64(n) {
			lo = mid
		} else {
			hi = mid
		}
	}
	word, k := b.set[lo], int(n)-int(b.rank[lo])
	if k >= bits.OnesCount64(word) {
		return 0, false
	}
	for range k {
		word &= word - 1 // drops the lowest bit set
	}
	return uint32(lo)<<6 | uint32(bits.TrailingZeros64(word)), true
}

// matchBlankIDs is MatchBlankIDs on the store.
func (d *diskGraph) matchBlankIDs(subject int32, fn func(t Triple, s, o int32) error) error {
	if d.err != nil {
		return d.err
	}
	if err := d.sort(); err != nil {
		return err
	}
	if err := d.blanks.count(); err != nil {
		return err
	}
	visit := func(tr idTriple) (bool, error) {
		t, err := d.triple(tr)
		if err != nil {
			return false, err
		}
		return true, fn(t, d.blanks.number(tr.s), d.blanks.number(tr.o))
	}
	if subject < 0 {
		d.dropIndex() // every triple: no term is looked up meanwhile
		return d.walk(&d.spo, 0, visit)
	}
	id, ok := d.blanks.term(subject)
	if w := int(id >> 6); !ok || w >= len(d.subjects) || d.subjects[w]&(1<<(id&63)) == 0 {
		return nil
	}
	return d.walk(&d.spo, uint64(id)<<32, func(tr idTriple) (bool, error) {
		if tr.s != id {
			return false, nil
		}
		return visit(tr)
	})
}

// triple returns the terms of tr.
func (d *diskGraph) triple(tr idTriple) (Triple, error) {
	var out Triple
	var e1, e2, e3 error
	out.S, e1 = d.term(tr.s)
	out.P, e2 = d.term(tr.p)
	out.O, e3 = d.term(tr.o)
	return out, errors.Join(e1, e2, e3)
}
