package bleve

// The page of a search sorted by a keyword field (title_sort, modified), chosen from the
// segments' uninverted sort fields, in place of bleve's top-N collector, which reads and decodes
// every hit's doc values for the sort.

import (
	"container/heap"

	"github.com/RoaringBitmap/roaring/v2"
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
		for _, x := range candidates(s.Segment(), u, hits, f.desc, n) {
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

// candidates are the hits of one segment that can be among the first n in u's order: the
// hits of the terms walked in order (descending when desc) until n are found, the last
// term's all, then, when fewer than n, every hit without a value. A document counts at its
// lowest term, its sort value.
func candidates(seg segment.Segment, u *uninverted, hits *roaring.Bitmap, desc bool, n int) []*sorted {
	var out []*sorted
	for k := range u.terms {
		o := k
		if desc {
			o = len(u.terms) - 1 - k
		}
		for _, d := range u.docs[u.posts[o]:u.posts[o+1]] {
			if hits.Contains(d) && u.ords[u.start[d]] == uint32(o) {
				out = append(out, &sorted{seg: seg, doc: uint64(d), value: u.terms[o]})
			}
		}
		if len(out) >= n {
			return out
		}
	}
	it := hits.Iterator()
	for it.HasNext() {
		if d := it.Next(); u.start[d] == u.start[d+1] {
			out = append(out, &sorted{seg: seg, doc: uint64(d), missing: true})
		}
	}
	return out
}
