package bleve

// Facet counts from the term dictionaries: each facet value's postings list intersected with
// the hits, per segment, in place of bleve's facet builders, which read every hit's doc values.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/harvester-dev/harvester/search"
)

// dictFacetMinHits is the number of hits from which Search counts the facets from the term
// dictionaries (dictFacets) rather than by bleve's facet builders. Below it, reading the few
// hits' doc values costs less than walking every facet value of every segment (the keyword
// facet alone has thousands); BenchmarkSearch measured both (docs/benchmarks.md).
var dictFacetMinHits = 2000

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

// dictFacets counts each facet's values over the hits from the term dictionaries of the facet
// fields: a value's count is its postings list less the documents that are not hits (deleted
// ones among them), summed over the segments. The counts are exact, the same as bleve's facet
// builders give (each value once a document), and so are the order and the cut: count
// descending, then value ascending, the first size.
func dictFacets(h *hitSet, size int) (map[string][]search.Facet, error) {
	except := make([]*roaring.Bitmap, len(h.segs))
	for i, s := range h.segs {
		if h.hits[i] == nil {
			except[i] = s.Deleted()
			continue
		}
		e := roaring.New()
		e.AddRange(0, s.Segment().Count())
		e.AndNot(h.hits[i])
		except[i] = e
	}
	out := map[string][]search.Facet{}
	for _, name := range search.FacetFields {
		counts := map[string]int{}
		for i, s := range h.segs {
			if h.hits[i] != nil && h.hits[i].IsEmpty() {
				continue
			}
			dict, err := s.Segment().Dictionary(facetFields[name])
			if err != nil {
				return nil, err
			}
			it := dict.AutomatonIterator(nil, nil, nil)
			var pl segment.PostingsList
			for {
				e, err := it.Next()
				if err != nil {
					return nil, err
				}
				if e == nil {
					break
				}
				if e.Count == 0 {
					continue
				}
				if pl, err = dict.PostingsList([]byte(e.Term), except[i], pl); err != nil {
					return nil, err
				}
				if c := pl.Count(); c > 0 {
					counts[e.Term] += int(c)
				}
			}
		}
		fs := make([]search.Facet, 0, len(counts))
		for v, c := range counts {
			fs = append(fs, search.Facet{Value: v, Count: c})
		}
		slices.SortFunc(fs, func(a, b search.Facet) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Value, b.Value))
		})
		out[name] = fs[:min(len(fs), size)]
	}
	return out, nil
}
