// Package search keeps the live catalog searchable: an Index interface over a full-text search
// engine, the Document that SYNC writes for each dataset, a Batcher that groups index writes
// into bulk requests, and Reindex and Reconcile, which rebuild or repair an index from the
// dataset table. Implementations: search/opensearch (OpenSearch 2.x, production) and
// search/bleve (bleve on disk, the embedded default). search/searchtest pins their behaviour.
package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Index is a search index of datasets. Document ids are dataset ids. Implementations are
// safe for concurrent use.
type Index interface {
	// Apply performs ops in one bulk request. It returns one error per op (nil where the op
	// succeeded; deleting a missing document succeeds), or a request-level error when the
	// request as a whole failed. An *OpError with Retryable set may succeed when sent again.
	Apply(ctx context.Context, ops []Op) ([]error, error)
	// Search answers q with one page of hits, the total hit count and facet counts.
	Search(ctx context.Context, q Query) (*Result, error)
	// Scan calls fn with every document's Entry (of one source when sourceID is not empty),
	// ordered by id, streaming in pages; fn's error stops the scan and is returned.
	Scan(ctx context.Context, sourceID string, fn func(Entry) error) error
	// DeleteSource removes every document of a source.
	DeleteSource(ctx context.Context, sourceID string) error
	// Rebuild builds a new, empty index, lets fill put documents into it, and then makes it
	// the live index in one step (OpenSearch: an alias swap), removing the old one. Searches
	// and writes go to the old index until the swap; writes made during the rebuild are not in
	// the new index (run Reconcile after). On error the live index is left as it was.
	Rebuild(ctx context.Context, fill func(put func(Document) error) error) error
	// Outdated reports whether the live index was made by another mapping than this version's
	// (an older version's, or one from before the mapping was stamped), as found when it was
	// opened; false after a Rebuild. Migrate rebuilds an outdated index.
	Outdated() bool
	// Refresh makes every write so far visible to Search. Writes become visible on their own
	// within about a second; tests and one-shot commands call Refresh.
	Refresh(ctx context.Context) error
	// Close releases the index.
	Close() error
}

// Op is one bulk operation: index Doc under ID, or delete ID when Doc is nil.
type Op struct {
	ID  string
	Doc *Document
}

// OpError is why one bulk operation failed.
type OpError struct {
	ID     string
	Status int    // HTTP-style status the engine gave the item (0 when it gave none)
	Reason string // the engine's error type and reason
	// Retryable is set for failures that may pass on a later try (429, 5xx, timeouts).
	Retryable bool
}

func (e *OpError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("document %s: status %d: %s", e.ID, e.Status, e.Reason)
	}
	return fmt.Sprintf("document %s: %s", e.ID, e.Reason)
}

// Retryable reports whether err (an *OpError or a request-level error) may pass when sent
// again: every request-level error may; an op error only when it says so.
func Retryable(err error) bool {
	var oe *OpError
	if errors.As(err, &oe) {
		return oe.Retryable
	}
	return err != nil
}

// Query is one search request. Empty fields do not filter.
//
// Text is words and "quoted phrases" (at most MaxTextTerms of them, MaxTextBytes in all): every
// word and every phrase must match, each in any of the text fields (title, description,
// keywords, themes, publisher, organization, distribution titles; a word may also be the whole
// identifier, and so may the whole Text). Words are analysed as English (stemmed, accents
// folded, stop words ignored); a phrase matches its words in order.
//
// Hits come in Sort's order. The default (SortRelevance) ranks by score, then id, when there is
// Text. Without Text nothing ranks them, so they come by the title's sort key
// (Document.TitleSort, SortKey: lower case, accents removed, its first SortKeyMax bytes; byte
// order), then by id; datasets without a title come after the others, and every Score is 0.
// Both implementations store and compare the same key, so they give the same pages.
type Query struct {
	Text string
	// Filters are whole-value filters (Filter), all of which must hold.
	Filters []Filter
	// BBox keeps datasets whose spatial extent (Document.Extent) intersects it; datasets
	// without a readable extent (a place name, or none) never match a BBox.
	BBox *BBox
	// Sort is SortRelevance (""), SortModified or SortTitle.
	Sort string
	// Organization, Keyword and SourceID are each a Filter on their field (the older form).
	Organization string // the whole organization name, case and accents ignored
	Keyword      string // one whole keyword, case and accents ignored
	SourceID     string
	Page         int // 1-based; 0 means 1
	PerPage      int // 0 means DefaultPerPage
	FacetSize    int // values per facet; 0 means DefaultFacetSize
}

// Filter keeps the datasets that have Value in Field (or, with Exclude, that do not). Value is
// compared whole, case and accents ignored (source_id exactly).
type Filter struct {
	Field   string `json:"field"` // one of FilterFields
	Value   string `json:"value"`
	Exclude bool   `json:"exclude,omitempty"`
}

// Filter fields: the facets, and the source.
const (
	FieldOrganization = "organization" // the harvest source's owner organization
	FieldKeyword      = "keyword"      // DCAT-US keyword
	FieldFormat       = "format"       // a distribution's format, else its mediaType
	FieldPublisher    = "publisher"    // DCAT-US publisher's name
	FieldTheme        = "theme"        // DCAT-US theme
	FieldSourceID     = "source_id"    // the harvest source's id (exact)
)

// FacetFields are the facets every Result has, in display order.
var FacetFields = []string{FieldOrganization, FieldKeyword, FieldFormat, FieldPublisher, FieldTheme}

// FilterFields are the fields a Filter may name.
var FilterFields = append(append([]string{}, FacetFields...), FieldSourceID)

// BBox is a bounding box in WGS84 degrees: West and East in -180..180, South and North in
// -90..90, South ≤ North. West > East is a box across the 180th meridian.
type BBox struct {
	West  float64 `json:"west"`
	South float64 `json:"south"`
	East  float64 `json:"east"`
	North float64 `json:"north"`
}

// Valid returns an error naming what is wrong with b.
func (b BBox) Valid() error {
	for _, v := range []float64{b.West, b.South, b.East, b.North} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("bbox: not a number")
		}
	}
	switch {
	case b.West < -180 || b.West > 180 || b.East < -180 || b.East > 180:
		return errors.New("bbox: west and east must be in -180..180")
	case b.South < -90 || b.South > 90 || b.North < -90 || b.North > 90:
		return errors.New("bbox: south and north must be in -90..90")
	case b.South > b.North:
		return errors.New("bbox: south must not be north of north")
	}
	return nil
}

// ParseBBox reads "W,S,E,N" (decimal degrees, as DCAT-US 1.1 writes spatial) into a BBox.
func ParseBBox(s string) (*BBox, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return nil, errors.New(`bbox: want four numbers "west,south,east,north"`)
	}
	var n [4]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf(`bbox: %q is not a number; want "west,south,east,north"`, p)
		}
		n[i] = f
	}
	b := &BBox{West: n[0], South: n[1], East: n[2], North: n[3]}
	if err := b.Valid(); err != nil {
		return nil, err
	}
	return b, nil
}

// String writes b as "W,S,E,N".
func (b BBox) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return f(b.West) + "," + f(b.South) + "," + f(b.East) + "," + f(b.North)
}

// Sorts.
const (
	SortRelevance = ""         // by score with Text, else as SortTitle
	SortModified  = "modified" // newest modified first; datasets without a modified date last; then id
	SortTitle     = "title"    // the title's sort key, then id; datasets without a title last
)

// Sorts are the values Query.Sort takes ("relevance" is read as SortRelevance).
var Sorts = []string{"relevance", SortModified, SortTitle}

// Paging defaults and limits.
const (
	DefaultPerPage   = 20
	MaxPerPage       = 1000 // CKAN's rows limit
	DefaultFacetSize = 20
	MaxFacetSize     = 1000
	// MaxWindow is the deepest hit a query may page to (page*per_page), OpenSearch's default
	// index.max_result_window.
	MaxWindow = 10000
	// MaxTextBytes and MaxTextTerms bound Text: a query of more words is refused (ErrTooLong)
	// rather than sent as thousands of clauses.
	MaxTextBytes = 2048
	MaxTextTerms = 64
	// MaxFilters bounds Filters.
	MaxFilters = 64
)

// ErrTooDeep is returned by Normalize for a page beyond MaxWindow.
var ErrTooDeep = fmt.Errorf("page × per_page is over %d: narrow the query instead of paging deeper", MaxWindow)

// ErrTooLong is returned by Normalize for a Text over MaxTextBytes or MaxTextTerms.
var ErrTooLong = fmt.Errorf("the search text is too long: at most %d words or phrases and %d bytes", MaxTextTerms, MaxTextBytes)

// Normalize returns q with defaults applied: page 1, DefaultPerPage, DefaultFacetSize; "relevance"
// read as SortRelevance; the older Organization, Keyword and SourceID fields moved to Filters
// (so they are empty in the result), filters with an empty value dropped. It returns ErrTooDeep when the page ends past MaxWindow,
// ErrTooLong for a Text too long, and an error naming the parameter for a negative page, a
// per_page over MaxPerPage, an unknown sort or filter field, too many filters or a bad BBox.
func (q Query) Normalize() (Query, error) {
	if q.Page < 0 || q.PerPage < 0 || q.PerPage > MaxPerPage {
		return q, fmt.Errorf("page must be ≥ 1 and per_page in 1..%d", MaxPerPage)
	}
	q.Page = max(q.Page, 1)
	if q.PerPage == 0 {
		q.PerPage = DefaultPerPage
	}
	if q.FacetSize <= 0 {
		q.FacetSize = DefaultFacetSize
	}
	q.FacetSize = min(q.FacetSize, MaxFacetSize)
	if q.Sort == "relevance" {
		q.Sort = SortRelevance
	}
	if q.Sort != SortRelevance && q.Sort != SortModified && q.Sort != SortTitle {
		return q, fmt.Errorf("sort %q: want one of %s", q.Sort, strings.Join(Sorts, ", "))
	}
	var filters []Filter
	for _, f := range q.Filters {
		if f.Value = strings.TrimSpace(f.Value); f.Value != "" {
			filters = append(filters, f)
		}
	}
	for field, v := range map[string]string{FieldOrganization: q.Organization, FieldKeyword: q.Keyword, FieldSourceID: q.SourceID} {
		if v != "" {
			filters = append(filters, Filter{Field: field, Value: v})
		}
	}
	slices.SortStableFunc(filters, func(a, b Filter) int { return strings.Compare(a.Field, b.Field) })
	q.Filters, q.Organization, q.Keyword, q.SourceID = filters, "", "", ""
	if len(q.Filters) > MaxFilters {
		return q, fmt.Errorf("at most %d filters", MaxFilters)
	}
	for _, f := range q.Filters {
		if !slices.Contains(FilterFields, f.Field) {
			return q, fmt.Errorf("filter field %q: want one of %s", f.Field, strings.Join(FilterFields, ", "))
		}
	}
	if q.BBox != nil {
		if err := q.BBox.Valid(); err != nil {
			return q, err
		}
	}
	if len(q.Text) > MaxTextBytes || len(ParseText(q.Text)) > MaxTextTerms {
		return q, ErrTooLong
	}
	if q.Page*q.PerPage > MaxWindow {
		return q, ErrTooDeep
	}
	return q, nil
}

// Term is one part of a Query's Text: a word, or a phrase (from between double quotes).
type Term struct {
	Text   string
	Phrase bool
}

// ParseText splits a search text into words (split at white space) and "quoted phrases"; an
// unclosed quote runs to the end. Empty phrases are dropped.
func ParseText(text string) []Term {
	var out []Term
	for i, part := range strings.Split(text, `"`) {
		if i%2 == 1 { // between quotes
			if p := strings.Join(strings.Fields(part), " "); p != "" {
				out = append(out, Term{Text: p, Phrase: true})
			}
			continue
		}
		for _, w := range strings.Fields(part) {
			out = append(out, Term{Text: w})
		}
	}
	return out
}

// From is the offset of the query's first hit.
func (q Query) From() int { return (q.Page - 1) * q.PerPage }

// Result is one page of hits.
type Result struct {
	Total  int                `json:"total"`
	Hits   []Hit              `json:"hits"`
	Facets map[string][]Facet `json:"facets"` // FacetFields: organization, keyword, format, publisher, theme
}

// Hit is one matching dataset.
type Hit struct {
	ID           string  `json:"id"`
	Title        string  `json:"title"`
	Slug         string  `json:"slug,omitempty"`
	Identifier   string  `json:"identifier,omitempty"`
	Organization string  `json:"organization,omitempty"`
	SourceID     string  `json:"source_id,omitempty"`
	Score        float64 `json:"score"`
	// Description is a snippet of the description (Snippet: at most SnippetMax characters).
	Description string   `json:"description,omitempty"`
	Formats     []string `json:"formats,omitempty"`   // the distributions' formats, as published, once each
	Modified    string   `json:"modified,omitempty"`  // RFC 3339, as Document.Modified
	Publisher   string   `json:"publisher,omitempty"` // the DCAT-US publisher's name
}

// SnippetMax is the most characters (runes) of a Hit's Description.
const SnippetMax = 300

// Snippet is the start of a description for a hit: white space collapsed, cut at a word
// boundary to at most SnippetMax characters, ending in "…" when cut.
func Snippet(desc string) string {
	s := strings.Join(strings.Fields(desc), " ")
	if utf8.RuneCountInString(s) <= SnippetMax {
		return s
	}
	r := []rune(s)[:SnippetMax-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.") + "…"
}

// Facet is one value of a facet and how many hits have it.
type Facet struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// Entry is what Scan gives of a document: enough to reconcile it with the dataset table.
type Entry struct {
	ID       string `json:"id"`
	SourceID string `json:"source_id"`
	RecordID string `json:"record_id"`
}
