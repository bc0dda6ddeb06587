package bleve

// Facet counts from the segments' facet fields uninverted once (each document's values as
// ordinals of the segment's term dictionary), in place of bleve's facet builders, which read
// and decode every hit's doc values on every search.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/harvester-dev/harvester/search"
)

// uninvertMinHits is the number of hits from which Search counts the facets from the
// uninverted facet fields (facetCache) rather than by bleve's facet builders: below it, the
// extra pass that collects the hits costs about what reading their doc values does.
var uninvertMinHits = 1000

// hitSet is the documents a query matches in one snapshot: a bitmap of local document
// numbers per segment, and their number.
type hitSet struct {
	segs  []*scorch.SegmentSnapshot
	hits  []*roaring.Bitmap // nil: every live document of the segment (match-all)
	total int
}

// snapshot opens a reader on idx's current snapshot; ok is false when idx is not scorch or is
// closed.
func snapshot(idx blevesearch.Index) (r *scorch.IndexSnapshot, ok bool, err error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, false, err
	}
	ir, err := adv.Reader()
	if err != nil {
		return nil, false, err
	}
	r, ok = ir.(*scorch.IndexSnapshot)
	if !ok {
		ir.Close()
		return nil, false, nil
	}
	if r == nil { // the index is closed: bleve's Search says so
		return nil, false, nil
	}
	return r, true, nil
}

// matches runs root over snapshot r without scoring and returns the documents it matches.
// A match-all root takes every live document without a search.
func matches(ctx context.Context, r *scorch.IndexSnapshot, im mapping.IndexMapping, root query.Query, all bool) (*hitSet, error) {
	segs := r.Segments()
	h := &hitSet{segs: segs, hits: make([]*roaring.Bitmap, len(segs))}
	if all {
		for _, s := range segs {
			h.total += int(s.Count())
		}
		return h, nil
	}
	offsets := make([]uint64, len(segs)+1) // a global document number is its segment's offset plus its local number
	for i, s := range segs {
		offsets[i+1] = offsets[i] + s.Segment().Count()
		h.hits[i] = roaring.New()
	}
	s, err := root.Searcher(ctx, r, im, bsearch.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0)}
	seg := 0
	for {
		dm, err := s.Next(sctx)
		if err != nil {
			return nil, err
		}
		if dm == nil {
			break
		}
		n := dm.IndexInternalID.Value()
		if n < offsets[seg] || n >= offsets[seg+1] { // hits come in document-number order: rarely taken
			seg = sort.Search(len(segs), func(i int) bool { return offsets[i+1] > n })
			if seg == len(segs) {
				return nil, fmt.Errorf("document number %d beyond the snapshot's segments", n)
			}
		}
		h.hits[seg].Add(uint32(n - offsets[seg]))
		h.total++
		sctx.DocumentMatchPool.Put(dm)
	}
	return h, nil
}

// uninverted is one segment's facet field turned around: for each document, the ordinals of
// its values (terms) in the segment's term dictionary. Segments never change, so it is made
// once a segment (ordinals) and kept while the segment is live.
type uninverted struct {
	terms []string
	start []uint32 // document d's ordinals are ords[start[d]:start[d+1]], ascending
	ords  []uint32
	// postings: term o's documents are docs[posts[o]:posts[o+1]], ascending
	posts []uint32
	docs  []uint32
}

// uninvert reads field's term dictionary and postings in seg (deleted documents included:
// only hits are counted).
func uninvert(seg segment.Segment, field string) (*uninverted, error) {
	dict, err := seg.Dictionary(field)
	if err != nil {
		return nil, err
	}
	n := seg.Count()
	u := &uninverted{start: make([]uint32, n+1)}
	var docs, ords []uint32
	it := dict.AutomatonIterator(nil, nil, nil)
	var pl segment.PostingsList
	var pi segment.PostingsIterator
	for {
		e, err := it.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		if pl, err = dict.PostingsList([]byte(e.Term), nil, pl); err != nil {
			return nil, err
		}
		ord := uint32(len(u.terms))
		u.terms = append(u.terms, e.Term)
		u.posts = append(u.posts, uint32(len(docs)))
		pi = pl.Iterator(false, false, false, pi)
		for {
			p, err := pi.Next()
			if err != nil {
				return nil, err
			}
			if p == nil {
				break
			}
			if d := p.Number(); d < n {
				docs, ords = append(docs, uint32(d)), append(ords, ord)
				u.start[d+1]++
			}
		}
	}
	u.posts, u.docs = append(u.posts, uint32(len(docs))), docs
	for d := range n {
		u.start[d+1] += u.start[d]
	}
	u.ords = make([]uint32, len(ords))
	next := append([]uint32(nil), u.start[:n]...)
	for i, d := range docs { // postings come by term, then document: each document's ordinals stay in term order
		u.ords[next[d]] = ords[i]
		next[d]++
	}
	return u, nil
}

// facetCache keeps the uninverted facet and sort fields of the live segments, by segment and
// field name.
type facetCache struct {
	mu sync.Mutex
	m  map[segment.Segment]map[string]*uninverted
}

// field returns seg's field uninverted, making it when missing.
func (c *facetCache) field(seg segment.Segment, field string) (*uninverted, error) {
	c.mu.Lock()
	defer c.mu.Unlock() // one maker at a time: a segment's field is uninverted once
	if u, ok := c.m[seg][field]; ok {
		return u, nil
	}
	u, err := uninvert(seg, field)
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[segment.Segment]map[string]*uninverted{}
	}
	if c.m[seg] == nil {
		c.m[seg] = map[string]*uninverted{}
	}
	c.m[seg][field] = u
	return u, nil
}

// keep forgets the segments that are not among live (merged away or deleted).
func (c *facetCache) keep(live []*scorch.SegmentSnapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	in := make(map[segment.Segment]bool, len(live))
	for _, s := range live {
		in[s.Segment()] = true
	}
	for seg := range c.m {
		if !in[seg] {
			delete(c.m, seg)
		}
	}
}

// facets counts each facet's values over the hits from the segments' uninverted facet fields
// (each value once a document, as bleve's facet builders count) and orders them as those do:
// count descending, then value ascending, the first size.
func (c *facetCache) facets(h *hitSet, size int) (map[string][]search.Facet, error) {
	c.keep(h.segs)
	counts := map[string]map[string]int{}
	for _, name := range search.FacetFields {
		counts[name] = map[string]int{}
	}
	for i, s := range h.segs {
		hits := h.hits[i]
		if hits == nil { // every live document
			hits = s.DocNumbersLive()
		}
		if hits.IsEmpty() {
			continue
		}
		for _, name := range search.FacetFields {
			f, err := c.field(s.Segment(), facetFields[name])
			if err != nil {
				return nil, err
			}
			n := make([]int, len(f.terms))
			it := hits.Iterator()
			for it.HasNext() {
				d := it.Next()
				for _, o := range f.ords[f.start[d]:f.start[d+1]] {
					n[o]++
				}
			}
			for o, k := range n {
				if k > 0 {
					counts[name][f.terms[o]] += k
				}
			}
		}
	}
	out := map[string][]search.Facet{}
	for _, name := range search.FacetFields {
		fs := make([]search.Facet, 0, len(counts[name]))
		for v, c := range counts[name] {
			fs = append(fs, search.Facet{Value: v, Count: c})
		}
		slices.SortFunc(fs, func(a, b search.Facet) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Value, b.Value))
		})
		out[name] = fs[:min(len(fs), size)]
	}
	return out, nil
}
