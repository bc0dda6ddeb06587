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

// Query is one search request. Empty fields do not filter. Hits with Text come by relevance
// (score), then id. Without Text nothing ranks them, so they come by the title's sort key
// (Document.TitleSort, SortKey: lower case, accents removed, its first SortKeyMax bytes; byte
// order), then by id; datasets without a title come after the others, and every Score is 0.
// Both implementations store and compare the same key, so they give the same pages.
type Query struct {
	Text         string // full text over title, description, keywords, themes, publisher, organization, identifier and distribution titles
	Organization string // the whole organization name, case and accents ignored
	Keyword      string // one whole keyword, case and accents ignored
	SourceID     string
	Page         int // 1-based; 0 means 1
	PerPage      int // 0 means DefaultPerPage
	FacetSize    int // values per facet; 0 means DefaultFacetSize
}

// Paging defaults and limits.
const (
	DefaultPerPage   = 20
	MaxPerPage       = 100
	DefaultFacetSize = 20
	// MaxWindow is the deepest hit a query may page to (page*per_page), OpenSearch's default
	// index.max_result_window.
	MaxWindow = 10000
)

// ErrTooDeep is returned by Normalize for a page beyond MaxWindow.
var ErrTooDeep = fmt.Errorf("page × per_page is over %d: narrow the query instead of paging deeper", MaxWindow)

// Normalize returns q with defaults applied: page 1, DefaultPerPage, DefaultFacetSize. It
// returns ErrTooDeep when the page ends past MaxWindow and an error for a negative page or a
// per_page over MaxPerPage.
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
	if q.Page*q.PerPage > MaxWindow {
		return q, ErrTooDeep
	}
	return q, nil
}

// From is the offset of the query's first hit.
func (q Query) From() int { return (q.Page - 1) * q.PerPage }

// Result is one page of hits.
type Result struct {
	Total  int                `json:"total"`
	Hits   []Hit              `json:"hits"`
	Facets map[string][]Facet `json:"facets"` // "organization" and "keyword"
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
