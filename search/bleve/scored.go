package bleve

// A relevance-sorted search in one pass: the query's searcher, scoring, gives the hit set (for
// the facets) and the best hits of the page at once, where bleve's collector would evaluate the
// query a second time.

import (
	"cmp"
	"container/heap"
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
)

// scoredHit is one of the best hits so far: its score, and its document (the id read when a
// tie needs it).
type scoredHit struct {
	score float64
	sorted
}

// bestFirst reports whether a comes before b in the relevance order ("-_score", "id": score
// descending, then id ascending, as bleve's collector orders them).
func bestFirst(a, b *scoredHit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.docID() < b.docID()
}

// worstScoreFirst is a heap of the best hits so far, the one that comes last on top.
type worstScoreFirst []*scoredHit

func (h worstScoreFirst) Len() int           { return len(h) }
func (h worstScoreFirst) Less(i, j int) bool { return bestFirst(h[j], h[i]) }
func (h worstScoreFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstScoreFirst) Push(x any)        { *h = append(*h, x.(*scoredHit)) }
func (h *worstScoreFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// scoredMatches runs root over snapshot r once, scoring as bleve's Search does (its default
// scoring model), and returns the documents it matches and the best n of them in the relevance
// order, best first.
func scoredMatches(ctx context.Context, r *scorch.IndexSnapshot, im mapping.IndexMapping, root query.Query, n int) (*hitSet, []*scoredHit, error) {
	segs := r.Segments()
	h := &hitSet{segs: segs, hits: make([]*roaring.Bitmap, len(segs))}
	offsets := make([]uint64, len(segs)+1) // a global document number is its segment's offset plus its local number
	for i, s := range segs {
		offsets[i+1] = offsets[i] + s.Segment().Count()
		h.hits[i] = roaring.New()
	}
	s, err := root.Searcher(ctx, r, im, bsearch.SearcherOptions{})
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0)}
	best := make(worstScoreFirst, 0, n)
	seg := 0
	var idErr error
	for {
		dm, err := s.Next(sctx)
		if err != nil {
			return nil, nil, err
		}
		if dm == nil {
			break
		}
		d, score := dm.IndexInternalID.Value(), dm.Score
		sctx.DocumentMatchPool.Put(dm)
		if d < offsets[seg] || d >= offsets[seg+1] { // hits come in document-number order: rarely taken
			seg = sort.Search(len(segs), func(i int) bool { return offsets[i+1] > d })
			if seg == len(segs) {
				return nil, nil, fmt.Errorf("document number %d beyond the snapshot's segments", d)
			}
		}
		local := d - offsets[seg]
		h.hits[seg].Add(uint32(local))
		h.total++
		if n <= 0 {
			continue
		}
		x := &scoredHit{score: score, sorted: sorted{seg: segs[seg].Segment(), doc: local}}
		switch {
		case len(best) < n:
			heap.Push(&best, x)
		case bestFirst(x, best[0]):
			best[0] = x
			heap.Fix(&best, 0)
		}
		if x.idErr != nil || best[0].idErr != nil {
			idErr = cmp.Or(x.idErr, best[0].idErr)
		}
	}
	if idErr != nil {
		return nil, nil, idErr
	}
	out := make([]*scoredHit, len(best))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&best).(*scoredHit)
		if out[i].docID(); out[i].idErr != nil {
			return nil, nil, out[i].idErr
		}
	}
	return h, out, nil
}

// scoredPage is req's page of the best hits top (scoredMatches's, best first) with their
// scores, its documents' fields read by a search for their ids; its total is the hits of h.
func (x *Index) scoredPage(ctx context.Context, req *blevesearch.SearchRequest, h *hitSet, top []*scoredHit) (*blevesearch.SearchResult, error) {
	top = top[min(req.From, len(top)):]
	res := &blevesearch.SearchResult{}
	if len(top) > 0 {
		ids := make([]string, len(top))
		for i, t := range top {
			ids[i] = t.id
		}
		byID := blevesearch.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
		byID.Fields = req.Fields
		var err error
		if res, err = x.idx.SearchInContext(ctx, byID); err != nil {
			return nil, err
		}
	}
	at := make(map[string]int, len(top))
	for i, t := range top {
		at[t.id] = i
	}
	slices.SortFunc(res.Hits, func(a, b *bsearch.DocumentMatch) int { return cmp.Compare(at[a.ID], at[b.ID]) })
	for _, hit := range res.Hits {
		hit.Score = top[at[hit.ID]].score
	}
	res.Total = uint64(h.total)
	return res, nil
}
