package bleve

// The search side of the index: Search, and the queries it builds from a search.Query.

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/harvester-dev/harvester/search"
)

// textFields are the full-text fields and their boosts (as the OpenSearch index's).
var textFields = map[string]float64{"title": 3, "description": 1, "keyword.text": 2, "theme.text": 1,
	"publisher": 1, "organization.text": 1, "distribution_title": 1}

// textFieldNames are textFields' names in order: a query's disjunction adds its fields' scores
// in this order, so that a search scores the same every time (floating-point addition depends
// on the order), and ties stay ties.
var textFieldNames = slices.Sorted(maps.Keys(textFields))

// filterFields are the folded fields the filters of search.Query match (case and accents
// ignored); source_id is matched exactly.
var filterFields = map[string]string{search.FieldOrganization: "organization.folded",
	search.FieldKeyword: "keyword.folded", search.FieldFormat: "distribution_format.folded",
	search.FieldPublisher: "publisher.folded", search.FieldTheme: "theme.folded"}

// facetFields are the published-value fields of the facets.
var facetFields = map[string]string{search.FieldOrganization: "organization", search.FieldKeyword: "keyword",
	search.FieldFormat: "distribution_format", search.FieldPublisher: "publisher.raw", search.FieldTheme: "theme"}

// Search runs q as the OpenSearch index does: each word and phrase of the text (search.ParseText)
// must match in one of the text fields (title and keywords boosted; a word's tokens all in one
// field; a word may be the identifier, and the whole text too); words that analyse to nothing
// (stop words) are left out, as OpenSearch's zero_terms_query "all" leaves them. The filters
// match the folded fields (source_id exact), excluded ones in a must_not; the bounding box is
// search.BBox.Intersects as numeric ranges on the extent. Facets are term facets of the
// published values. Hits come in search.Query's order.
func (x *Index) Search(ctx context.Context, q search.Query) (*search.Result, error) {
	q, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	x.mu.RLock()
	folded, im := x.folded, x.idx.Mapping()
	x.mu.RUnlock()
	key := resultKey(q, folded)
	cached, gen := x.cache.get(key)
	if cached != nil {
		return cached, nil
	}
	analyzer := textAnalyzer // named: for "keyword.text", bleve would take the "keyword" field's analyzer
	if !folded {
		analyzer = en.AnalyzerName
	}
	var must, mustNot []query.Query
	text := strings.TrimSpace(q.Text) != ""
	if text {
		must = append(must, textQuery(q.Text, im.AnalyzerNamed(analyzer), analyzer))
	}
	for _, f := range q.Filters {
		c := filterQuery(f, folded)
		if f.Exclude {
			mustNot = append(mustNot, c)
		} else {
			must = append(must, c)
		}
	}
	if q.BBox != nil {
		must = append(must, bboxQuery(*q.BBox))
	}
	if len(must) == 0 {
		must = append(must, blevesearch.NewMatchAllQuery())
	}
	root := query.NewBooleanQuery(must, nil, mustNot)
	req := blevesearch.NewSearchRequestOptions(root, q.PerPage, q.From(), false)
	req.Fields = []string{"title", "slug", "identifier", "organization", "source_id", "description",
		"distribution_format", "modified", "publisher.raw"}
	var by *sortField // the field sort, when Search sorts by a field
	switch {
	case q.Sort == search.SortModified:
		by = &sortField{field: "modified", desc: true}
		req.SortByCustom(bsearch.SortOrder{
			&bsearch.SortField{Field: "modified", Desc: true, Type: bsearch.SortFieldAsString, Missing: bsearch.SortFieldMissingLast},
			&bsearch.SortField{Field: "id"}})
	case text && q.Sort == search.SortRelevance:
		req.SortBy([]string{"-_score", "id"})
	default:
		req.SortBy([]string{"title_sort", "id"}) // search.Query's order without text
		by = &sortField{field: "title_sort"}
	}
	facets, err := x.search(ctx, req, root, by, q.FacetSize, len(q.Filters) == 0 && q.BBox == nil && !text)
	if err != nil {
		return nil, fmt.Errorf("bleve: %w", err)
	}
	res := facets.res
	out := &search.Result{Total: int(res.Total), Hits: []search.Hit{}, Facets: map[string][]search.Facet{}}
	for _, h := range res.Hits {
		score := h.Score
		if !text || q.Sort != search.SortRelevance {
			score = 0 // OpenSearch gives no score when it sorts by a field; filters alone score as constants
		}
		out.Hits = append(out.Hits, search.Hit{ID: h.ID, Score: score, Title: field(h.Fields, "title"),
			Slug: field(h.Fields, "slug"), Identifier: field(h.Fields, "identifier"),
			Organization: field(h.Fields, "organization"), SourceID: field(h.Fields, "source_id"),
			Description: search.Snippet(field(h.Fields, "description")), Formats: fieldAll(h.Fields, "distribution_format"),
			Modified: rfc3339(field(h.Fields, "modified")), Publisher: field(h.Fields, "publisher.raw")})
	}
	for _, name := range search.FacetFields {
		out.Facets[name] = []search.Facet{}
		if facets.counts != nil {
			out.Facets[name] = append(out.Facets[name], facets.counts[name]...)
			continue
		}
		if f := res.Facets[name]; f != nil && f.Terms != nil {
			for _, t := range f.Terms.Terms() {
				out.Facets[name] = append(out.Facets[name], search.Facet{Value: t.Term, Count: t.Count})
			}
		}
	}
	x.cache.put(key, gen, out)
	return out, nil
}

// answer is a search's bleve result and, when they were counted from the uninverted fields,
// its facets.
type answer struct {
	res    *blevesearch.SearchResult
	counts map[string][]search.Facet
}

// search runs req (root's page of hits) on the live generation and counts the five facets over
// root's hits: from the uninverted facet fields (facetCache) when root matches uninvertMinHits
// documents or more (all: root matches every document), and then picks the page of a field
// sort (by) from the uninverted sort field too, or, sorted by relevance (by nil), the page the
// pass that found the hits scored (scoredMatches); else by bleve's facet builders and collector. Both
// read one snapshot each; a write between them can make the counts and the hits disagree by
// what it wrote, as on OpenSearch between refreshes, and such an answer is never cached.
func (x *Index) search(ctx context.Context, req *blevesearch.SearchRequest, root query.Query, by *sortField, size int, all bool) (answer, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var counts map[string][]search.Facet
	r, ok, err := snapshot(x.idx)
	if err != nil {
		return answer{}, err
	}
	if ok {
		defer r.Close()
		if by == nil { // by relevance: one pass scores, collects the hits and the page's best
			h, top, err := scoredMatches(ctx, r, x.idx.Mapping(), root, req.From+req.Size)
			if err != nil {
				return answer{}, err
			}
			if h.total >= uninvertMinHits {
				if counts, err = x.facets.facets(h, size); err != nil {
					return answer{}, err
				}
				res, err := x.scoredPage(ctx, req, h, top)
				return answer{res: res, counts: counts}, err
			}
			return x.collect(ctx, req, size)
		}
		h, err := matches(ctx, r, x.idx.Mapping(), root, all)
		if err != nil {
			return answer{}, err
		}
		if h.total >= uninvertMinHits {
			if counts, err = x.facets.facets(h, size); err != nil {
				return answer{}, err
			}
			if by != nil {
				res, err := x.sortedPage(ctx, req, h, *by)
				return answer{res: res, counts: counts}, err
			}
		}
	}
	if counts != nil {
		res, err := x.idx.SearchInContext(ctx, req)
		return answer{res: res, counts: counts}, err
	}
	return x.collect(ctx, req, size)
}

// collect runs req by bleve's collector, the facets by its facet builders.
func (x *Index) collect(ctx context.Context, req *blevesearch.SearchRequest, size int) (answer, error) {
	for _, name := range search.FacetFields {
		req.AddFacet(name, blevesearch.NewFacetRequest(facetFields[name], size))
	}
	res, err := x.idx.SearchInContext(ctx, req)
	if err != nil {
		return answer{}, err
	}
	return answer{res: res}, nil
}

// sortedPage is req's page of the hits h in by's order (facetCache.page), its documents'
// fields read by a search for their ids.
func (x *Index) sortedPage(ctx context.Context, req *blevesearch.SearchRequest, h *hitSet, by sortField) (*blevesearch.SearchResult, error) {
	ids, err := x.facets.page(h, by, req.From, req.Size)
	if err != nil {
		return nil, err
	}
	res := &blevesearch.SearchResult{}
	if len(ids) > 0 {
		byID := blevesearch.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
		byID.Fields = req.Fields
		if res, err = x.idx.SearchInContext(ctx, byID); err != nil {
			return nil, err
		}
	}
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	slices.SortFunc(res.Hits, func(a, b *bsearch.DocumentMatch) int { return cmp.Compare(at[a.ID], at[b.ID]) })
	res.Total = uint64(h.total)
	return res, nil
}

// textQuery is the text's query: the whole text as the identifier, or every word and phrase.
func textQuery(text string, an analysis.Analyzer, analyzer string) query.Query {
	var all []query.Query
	for _, t := range search.ParseText(text) {
		if an != nil && len(an.Analyze([]byte(t.Text))) == 0 {
			continue // a stop word, or punctuation
		}
		var alts []query.Query
		for _, field := range textFieldNames {
			boost := textFields[field]
			if t.Phrase {
				p := blevesearch.NewMatchPhraseQuery(t.Text)
				p.SetField(field)
				p.SetBoost(boost)
				p.Analyzer = analyzer
				alts = append(alts, p)
				continue
			}
			w := blevesearch.NewMatchQuery(t.Text)
			w.SetField(field)
			w.SetBoost(boost)
			w.SetOperator(query.MatchQueryOperatorAnd)
			w.Analyzer = analyzer
			alts = append(alts, w)
		}
		if !t.Phrase {
			id := blevesearch.NewTermQuery(t.Text)
			id.SetField("identifier")
			alts = append(alts, id)
		}
		all = append(all, blevesearch.NewDisjunctionQuery(alts...))
	}
	var words query.Query = blevesearch.NewMatchAllQuery()
	if len(all) > 0 {
		words = blevesearch.NewConjunctionQuery(all...)
	}
	id := blevesearch.NewTermQuery(strings.TrimSpace(text))
	id.SetField("identifier")
	return blevesearch.NewDisjunctionQuery(id, words)
}

// filterQuery matches f's value: whole, folded (one token of foldedAnalyzer), or exactly for
// source_id and, in a generation from before the folded fields, the published value.
func filterQuery(f search.Filter, folded bool) query.Query {
	name, ok := filterFields[f.Field]
	if !ok || !folded {
		t := blevesearch.NewTermQuery(f.Value)
		t.SetField(cmp.Or(facetFields[f.Field], f.Field))
		return t
	}
	m := blevesearch.NewMatchQuery(f.Value) // one token: the whole value, folded
	m.SetField(name)
	m.Analyzer = foldedAnalyzer
	return m
}

// bboxQuery is search.BBox.Intersects on the extent's numbers.
func bboxQuery(b search.BBox) query.Query {
	rng := func(field string, lo, hi *float64) query.Query {
		t := true
		r := blevesearch.NewNumericRangeInclusiveQuery(lo, hi, &t, &t)
		r.SetField("extent." + field)
		return r
	}
	val := func(v float64) *float64 { return &v }
	var lon []query.Query
	for _, r := range b.LonRanges() {
		for _, shift := range []float64{0, 360} {
			lon = append(lon, blevesearch.NewConjunctionQuery(rng("west", nil, val(r[1]+shift)), rng("east", val(r[0]+shift), nil)))
		}
	}
	return blevesearch.NewConjunctionQuery(rng("south", nil, val(b.North)), rng("north", val(b.South), nil),
		blevesearch.NewDisjunctionQuery(lon...))
}

// rfc3339 writes a stored date as search.Document does (RFC 3339, UTC, seconds).
func rfc3339(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format(time.RFC3339)
}

// fieldAll is every value of a stored field.
func fieldAll(fields map[string]any, name string) []string {
	switch v := fields[name].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func field(fields map[string]any, name string) string {
	switch v := fields[name].(type) {
	case string:
		return v
	case []any: // a multi-valued stored field
		if len(v) > 0 {
			s, _ := v[0].(string)
			return s
		}
	}
	return ""
}
