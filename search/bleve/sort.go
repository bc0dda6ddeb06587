package bleve

// The page of a search sorted by a keyword field (title_sort, modified), chosen from the
// segments' uninverted sort fields, in place of bleve's top-N collector, which reads and decodes
// every hit's doc values for the sort.

import (
	"container/heap"

	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// sortField is a field sort: by field's value, descending when desc, documents without a
// value last, ties by the document's id ascending (as Search's bleve sorts and search.Query's
// order).
type sortField struct {
	field string
	desc  bool
}

// sorted is one hit of a sorted page: its segment and local number, its sort value, and its
// id once a tie needed it.
type sorted struct {
	seg     segment.Segment
	doc     uint64
	value   string
	missing bool
	id      string
	idErr   error
}

func (s *sorted) docID() string {
	if s.id == "" && s.idErr == nil {
		b, err := s.seg.DocID(s.doc)
		s.id, s.idErr = string(b), err
	}
	return s.id
}

// before reports whether a comes before b in f's order.
func (f sortField) before(a, b *sorted) bool {
	switch {
	case a.missing != b.missing:
		return b.missing
	case !a.missing && a.value != b.value:
		return (a.value < b.value) != f.desc
	}
	return a.docID() < b.docID()
}

// before is f.before, keeping the first error a document's id gave.
func (h *worstFirst) before(a, b *sorted) bool {
	r := h.f.before(a, b)
	if h.err == nil {
		h.err = cmpOr(a.idErr, b.idErr)
	}
	return r
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// worstFirst is a heap of the best hits so far, the one that comes last on top.
type worstFirst struct {
	f    sortField
	hits []*sorted
	err  error
}

func (h *worstFirst) Len() int           { return len(h.hits) }
func (h *worstFirst) Less(i, j int) bool { return h.before(h.hits[j], h.hits[i]) }
func (h *worstFirst) Swap(i, j int)      { h.hits[i], h.hits[j] = h.hits[j], h.hits[i] }
func (h *worstFirst) Push(x any)         { h.hits = append(h.hits, x.(*sorted)) }
func (h *worstFirst) Pop() any {
	x := h.hits[len(h.hits)-1]
	h.hits = h.hits[:len(h.hits)-1]
	return x
}

// page returns the ids of the hits [from, from+size) of hs in f's order, from the segments'
// uninverted sort field (a document's first value, the lowest, as bleve's sort takes it).
func (c *facetCache) page(hs *hitSet, f sortField, from, size int) ([]string, error) {
	c.keep(hs.segs)
	n := from + size
	h := &worstFirst{f: f}
	for i, s := range hs.segs {
		hits := hs.hits[i]
		if hits == nil {
			hits = s.DocNumbersLive()
		}
		if hits.IsEmpty() {
			continue
		}
		u, err := c.field(s.Segment(), f.field)
		if err != nil {
			return nil, err
		}
		it := hits.Iterator()
		for it.HasNext() {
			d := it.Next()
			x := &sorted{seg: s.Segment(), doc: uint64(d), missing: u.start[d] == u.start[d+1]}
			if !x.missing {
				x.value = u.terms[u.ords[u.start[d]]]
			}
			if h.Len() < n {
				heap.Push(h, x)
			} else if h.before(x, h.hits[0]) {
				h.hits[0] = x
				heap.Fix(h, 0)
			}
		}
	}
	if h.err != nil {
		return nil, h.err
	}
	out := make([]string, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		x := heap.Pop(h).(*sorted)
		if x.docID(); x.idErr != nil {
			return nil, x.idErr
		}
		out[i] = x.id
	}
	return out[min(from, len(out)):], nil
}
