package extract

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// PortalItem is one item of a portal API page: one record.
type PortalItem struct {
	// Identifier keys the record across every harvest source (harvest_record.identifier): the
	// platform's stable id made unique by the portal, e.g. "<portal base URL>/dataset/<id>" for
	// CKAN. "" with Err when the item has none.
	Identifier string
	// Title names the item in error messages ("" when unknown).
	Title string
	// Raw is the item as the portal served it (source_raw), JSON; nil when TooLarge.
	Raw []byte
	// TooLarge is set for an item over Config.MaxRecordBytes, measured as it streamed past and
	// never held: Size is its length in bytes, and Identifier and Title were read from its key
	// members. It settles as errored (RecordTooLarge); its identifier is still seen, so the
	// dataset it already has is kept.
	TooLarge bool
	Size     int64
	// Err is why the item has no usable identifier (it then settles as MissingIdentifier, or
	// ForeignDomain for a Socrata view of another domain).
	Err error
	// Skip, when not empty, says why the item is not a record of its own (a Socrata derived view:
	// a filtered view, chart or map over another dataset): it is counted against the listing's
	// total only, and is neither a record nor an error row.
	Skip string
	// Warnings become warning rows of the record.
	Warnings []harvest.RecordError
	// XML: Raw is an XML document (a CSW record), which travels as harvest.Record.XML (its
	// encoding declaration governs it, so it is not checked as UTF-8 here), without a source
	// type: TRANSFORM maps it by its root element, as a WAF's file. A repeat of an identifier
	// within its page counts against the total (a catalog may hold two records of one
	// fileIdentifier, and its count counts both).
	XML bool
	// IdentifierSize, when set, is the length in bytes of an identifier read only in part
	// (Identifier is its first bytes; a CSW record's over MaxKeyBytes), named in its
	// IdentifierTooLong row.
	IdentifierSize int64
	// Origin, when set, says the portal itself harvested the item from elsewhere (a CKAN
	// package with a harvest_source_id extra, harvested from a data.json): when a dataset of
	// another harvest source of ours is live under Origin.Identifier, the record gets a
	// CrossSourceDuplicate warning naming that source, and is harvested still.
	Origin *PortalOrigin
}

// ItemError is a PortalItem.Err that names its error row's type and identifier itself (a
// Socrata view of another domain: ForeignDomain, named by its identifier on its own domain);
// any other Err is a MissingIdentifier.
type ItemError interface {
	error
	RowType() string       // the error row's type
	RowIdentifier() string // the error row's identifier, "" for none
}

// MaxKeyBytes bounds a key member (an identifier, a title) kept of an item over the record
// size cap, or of a CSW record.
const MaxKeyBytes = 64 << 10

// PortalOrigin is where a portal harvested an item from.
type PortalOrigin struct {
	Identifier string // the item's identifier there (CKAN's "identifier" extra)
	Source     string // the portal's name or id of that harvest source (harvest_source_title, harvest_source_id)
}

// PortalPage is one page of a portal listing, as a PortalPageFunc read it.
type PortalPage struct {
	// URL is the page's request URL, named in errors.
	URL string
	// Items are the page's items, in the order served.
	Items []PortalItem
	// Total is the number of items the whole listing holds, as this page reports it (CKAN
	// result.count, Socrata resultSetSize, ArcGIS total, ODS total_count); -1 when the API
	// reports none (the listing then pages until a page is short or Last).
	Total int
	// Last is set when the API says no page follows (ArcGIS nextStart -1). With a known Total
	// a Last page before the total is reached ends the listing short: the job fails.
	Last bool
}

// PortalPageFunc fetches the page of the listing that starts at offset (Pager.Start, then
// Start+PageSize, Start+2*PageSize …). Its error fails the job, so it should say which page
// and why: a *fetch.Error names the URL and the HTTP status after fetch's retries. It is
// called from several goroutines at once (at most Pager.Window).
type PortalPageFunc func(ctx context.Context, offset int) (*PortalPage, error)

// Pager lists a portal API that pages by offset. Zero fields take the documented defaults.
type Pager struct {
	// Name names the API in job errors, e.g. "CKAN package_search".
	Name string
	// PageSize is the number of items a page asks for (CKAN rows, ArcGIS num). Required.
	PageSize int
	// PageSizeOption is the source option that sets PageSize ("rows", "limit", "num"), named in
	// the hint to a portal that caps its page size and in errors.
	PageSizeOption string
	// ResultWindow, when set, is how many items of a listing the API serves at most (ODS's
	// Explore API and ArcGIS's search: 10,000): the page after a full last page, which checks
	// the count, is not asked for past it.
	ResultWindow int
	// MaxPages caps the pages of a listing whose API reports no total (ODS v1), which nothing
	// else ends but a short page: one more fails the job. Default DefaultMaxPortalPages.
	MaxPages int
	// CapTotal applies MaxPages to a listing with a total too (CSW): a total that spans more
	// pages fails the listing at its first page, before any item is listed, so a count of a
	// million at 10 a page is never paged through.
	CapTotal bool
	// Start is the offset of the first page: 0 (CKAN start, Socrata/ODS offset) or 1 (ArcGIS
	// start).
	Start int
	// Window is the number of pages fetched or held at once, the bound on the listing's
	// memory: at most Window pages' items are in memory. Default: the fetch configuration's
	// MaxPerHost, so the window never waits on fetch's per-host limit.
	Window int
	// Server is what job errors call the listing's server: "portal" when empty, "catalogue" for
	// a CSW.
	Server string
	// Page fetches one page. Required.
	Page PortalPageFunc
	// Collect, when set, takes each item (checked by the guard) instead of the listing: no record
	// or error row is sent (a CSW's brief listing of identifiers). It must count what it takes
	// in the Run's seen or unkeyed, as the listing would, for the check against the total.
	Collect func(it *PortalItem) error
}

// PortalListingError is a portal listing that could not be completed: a page that failed
// after fetch's retries, or a listing that ended short of its total or whose total changed.
// The job fails with its message, and no Listing is sent, so COMPARE deletes nothing.
type PortalListingError struct {
	Name string // Pager.Name
	URL  string // the page concerned; "" when the problem is the whole listing's
	Err  error
}

func (e *PortalListingError) Error() string {
	if e.URL == "" {
		return fmt.Sprintf("list %s: %v", e.Name, e.Err)
	}
	return fmt.Sprintf("list %s: page %s: %v", e.Name, e.URL, e.Err)
}

func (e *PortalListingError) Unwrap() error { return e.Err }

// ListPager runs a whole paged listing (a portal's, a CSW's) for job with p, ending the job's
// EXTRACT: every item becomes a record message to COMPARE (or an error row) as soon as its page
// arrives, and when the listing is complete the Listing is sent. It fails the job (and sends no Listing)
// on a *PortalListingError; it returns other errors (store, bus) for a retry.
//
// Paging: the first page (offset p.Start) is fetched alone, for its Total; then the other
// pages of ceil(Total/PageSize) are fetched concurrently, p.Window at a time, and their items
// sent in listing order (page after page), so positions are stable and at most Window pages
// are in memory. With no Total (-1) pages are fetched one after another until a page has
// fewer than PageSize items or is Last.
//
// Every page is checked before its items are listed (pageGuard), so a portal whose pages
// contradict its count or each other fails the job naming the page URL, and deletes nothing:
// a page reporting another total than the first (items were added or removed mid-listing:
// offsets shifted); a page before the last that is short, empty or Last; a page holding more
// items than the total leaves for it, or a non-empty page after the last full one (the count
// is smaller than the listing: that page is fetched to check); a page repeating an identifier
// an earlier page listed, or an earlier page's items (the portal ignores the offset: a portal
// serving one page forever costs one page); a page longer than asked for (the portal ignores
// the page size) unless, with a total, it holds the whole listing, which is then taken as it
// is. A first page shorter than asked for whose total says more follow is the portal's cap
// on the page size: the listing goes on at that size, and its first item carries a
// PortalPageSize warning naming the option to set. The listing fails, too, when the distinct
// identifiers listed are fewer than the total. An item repeating an identifier of its own page
// keeps the first: the repeat settles as errored with DuplicateIdentifier, as a data.json's
// repeated identifier does. An empty page where the total says the listing is complete (a
// last page past the total) is fine.
func (h *Handler) ListPager(ctx context.Context, job *harvest.Job, p *Pager) error {
	l := &Run{h: h, ctx: ctx, job: job, seen: map[string]int{}}
	err := l.ListPages(p)
	var le *PortalListingError
	if errors.As(err, &le) {
		return l.Fail(harvest.TypeExtractError, err)
	}
	if err != nil {
		return err
	}
	return l.Complete()
}

// portalPage is one page's outcome, handed from its fetch to the Run.
type portalPage struct {
	page *PortalPage
	err  error
}

// portal lists p's pages; a *PortalListingError when the listing cannot be completed.
func (l *Run) ListPages(p *Pager) error {
	if p.PageSize <= 0 || p.Page == nil {
		return fmt.Errorf("pager %s: PageSize and Page are required", p.Name)
	}
	window := p.Window
	if window <= 0 {
		window = max(l.h.fetch.MaxPerHost, 1)
	}
	first, err := p.Page(l.ctx, p.Start)
	if err != nil {
		return l.pageError(p, p.Start, err)
	}
	g, err := newPageGuard(p, first)
	if err != nil {
		return err
	}
	if g.total < 0 {
		return l.portalSequential(g, first)
	}
	if err := l.portalPageItems(g, first, 0); err != nil {
		return err
	}
	last := first
	if g.pages > 1 && !first.Last {
		if last, err = l.portalConcurrent(g, window); err != nil {
			return err
		}
	}
	if last, err = l.portalAfterLast(g, last); err != nil {
		return err
	}
	if distinct := len(l.seen) + l.unkeyed; distinct < g.total {
		return &PortalListingError{Name: p.Name, URL: last.URL, Err: fmt.Errorf(
			"the listing ended short of its total: %d distinct items listed (%d served), the %s reported %d",
			distinct, l.listed, p.server(), g.total)}
	}
	return nil
}

// portalAfterLast fetches the page after the last one the total spans when that last page was
// full (pageGuard.afterLast), and fails the listing unless it is empty; it returns the last
// page fetched.
func (l *Run) portalAfterLast(g *pageGuard, last *PortalPage) (*PortalPage, error) {
	offset := g.afterLast(last)
	if offset < 0 {
		return last, nil
	}
	page, err := g.p.Page(l.ctx, offset)
	if err != nil {
		return nil, l.pageError(g.p, offset, err)
	}
	return page, g.checkAfterLast(page)
}

// portalConcurrent fetches pages 1…g.pages-1 window at a time and lists them in order; it
// returns the last page.
func (l *Run) portalConcurrent(g *pageGuard, window int) (*PortalPage, error) {
	ctx, cancel := context.WithCancel(l.ctx)
	defer cancel()
	order := make(chan chan portalPage, window) // the pages in flight or waiting, in page order
	slots := make(chan struct{}, window)        // a slot per page fetched and not yet listed
	go func() {
		defer close(order)
		for k := 1; k < g.pages; k++ {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			done := make(chan portalPage, 1)
			order <- done // never blocks: order holds window entries, slots bound them
			go func(offset int) {
				page, err := g.p.Page(ctx, offset)
				done <- portalPage{page, err}
			}(g.offset(k))
		}
	}()
	var (
		err  error
		last *PortalPage
	)
	k := 1
	for done := range order {
		r := <-done
		if err == nil {
			if r.err != nil {
				err = l.pageError(g.p, g.offset(k), r.err)
			} else {
				err, last = l.portalPageItems(g, r.page, k), r.page
			}
			if err != nil {
				cancel() // the pages still in flight end; drain them
			}
		}
		<-slots
		k++
	}
	return last, err
}

// server is what job errors call p's server (Pager.Server).
func (p *Pager) server() string { return cmp.Or(p.Server, "portal") }

// DefaultMaxPortalPages is Pager.MaxPages's default: 10,000 pages (a million items at 100 a
// page).
const DefaultMaxPortalPages = 10_000

// portalSequential lists a portal that reports no total, page after page from first, at most
// Pager.MaxPages pages.
func (l *Run) portalSequential(g *pageGuard, first *PortalPage) error {
	maxPages := cmp.Or(g.p.MaxPages, DefaultMaxPortalPages)
	page := first
	for k := 0; ; k++ {
		if k == maxPages {
			return g.errorf(page, "the listing goes on past %d pages, and the %s reports no total to tell "+
				"when it ends", maxPages, g.p.server())
		}
		if err := g.checkSequential(page, k, l.seen); err != nil {
			return err
		}
		for i := range page.Items {
			if err := l.item(g.p, &page.Items[i]); err != nil {
				return err
			}
		}
		if page.Last || len(page.Items) < g.size {
			return nil
		}
		offset := g.offset(k + 1)
		var err error
		if page, err = g.p.Page(l.ctx, offset); err != nil {
			return l.pageError(g.p, offset, err)
		}
	}
}

// portalPageItems checks page k (0-based) of a listing with a total (pageGuard.check) and
// lists its items; the first item of the listing carries the guard's hint, if any.
func (l *Run) portalPageItems(g *pageGuard, page *PortalPage, k int) error {
	if err := g.check(page, k, l.seen); err != nil {
		return err
	}
	for i := range page.Items {
		if k == 0 && i == 0 && g.hint != nil {
			page.Items[i].Warnings = append(page.Items[i].Warnings, *g.hint)
		}
		if err := l.item(g.p, &page.Items[i]); err != nil {
			return err
		}
	}
	return nil
}

// item hands one item of p's listing on: to p.Collect when set, else to ListItem.
func (l *Run) item(p *Pager, it *PortalItem) error {
	if p.Collect != nil {
		return p.Collect(it)
	}
	return l.ListItem(it)
}

// pageError is the PortalListingError of a page that could not be read.
func (l *Run) pageError(p *Pager, offset int, err error) error {
	if l.ctx.Err() != nil {
		return l.ctx.Err() // the stage is stopping: retry, fail nothing
	}
	var le *PortalListingError
	if errors.As(err, &le) {
		return err
	}
	// A *fetch.Error's message names the URL and the status after the retries.
	return &PortalListingError{Name: p.Name, Err: fmt.Errorf("page at offset %d: %w", offset, err)}
}

// ListItem lists one item: nothing when it is Skip, an error row when it has no usable
// identifier, repeats one or is over the record size cap, else a record to COMPARE with the
// job's source type (TRANSFORM maps it by platform).
func (l *Run) ListItem(it *PortalItem) error {
	if it.Skip != "" {
		l.unkeyed++ // counted against the total, listed as nothing
		return nil
	}
	pos, err := l.Next()
	if err != nil {
		return err
	}
	e := catalog.Entry{Position: pos, Identifier: it.Identifier, Title: it.Title, Raw: it.Raw, Err: it.Err}
	if it.TooLarge {
		e.TooLarge, e.Size = true, it.Size
		if err := l.TooLarge(&e); err != nil || e.Identifier != "" {
			return err
		}
		l.unkeyed++ // no usable identifier: an item of its own, counted against the total
		return nil
	}
	if off := InvalidUTF8(it.Raw); off >= 0 && !it.XML {
		l.unkeyed++
		return l.SettleError(&catalog.Entry{Position: pos}, harvest.TypeInvalidEncoding, fmt.Sprintf(
			"item #%d%s is not valid UTF-8 at byte %d", pos+1, e.Named(), off))
	}
	if it.Err == nil && !utf8.ValidString(it.Identifier) {
		e.Err = errors.New("identifier is not valid UTF-8")
	}
	if it.Err == nil && strings.TrimSpace(it.Identifier) == "" {
		e.Err = fmt.Errorf("item #%d%s has no identifier", pos+1, e.Named())
	}
	if bad := harvest.CheckIdentifier(pos, e.Identifier, e.Title, e.Err, l.seen); bad != nil {
		var ie ItemError
		if errors.As(e.Err, &ie) {
			bad.Type, bad.Identifier = ie.RowType(), ie.RowIdentifier()
		}
		if bad.Type != harvest.TypeDuplicateIdentifier || it.XML {
			l.unkeyed++ // an item of its own, counted against the total (a CSW counts a repeated record too)
		}
		if bad.Type == harvest.TypeIdentifierTooLong && it.IdentifierSize > int64(len(e.Identifier)) {
			bad.Message = harvest.IdentifierTooLongMessage(pos, e.Title, it.IdentifierSize)
		}
		if err := l.KeepTooLong(&e, bad); err != nil {
			return err
		}
		e.Identifier = bad.Identifier
		return l.SettleError(&e, bad.Type, bad.Message)
	}
	if err := l.See(&e); err != nil {
		return err
	}
	if it.Origin != nil && it.Origin.Identifier != "" {
		w, err := l.crossSource(it)
		if err != nil {
			return err
		}
		if w != nil {
			it.Warnings = append(it.Warnings, *w)
		}
	}
	rec := &harvest.Record{JobID: l.job.JobID, SourceID: l.job.SourceID, JobType: l.job.JobType,
		SchemaType: l.job.SchemaType, SourceType: l.job.SourceType, RecordID: harvest.RecordID(l.job.JobID, e.Identifier),
		Identifier: e.Identifier, Position: pos, Body: harvest.RawText(it.Raw), Warnings: it.Warnings,
		PublisherName: l.job.PublisherName}
	if it.XML {
		rec.SourceType, rec.Body, rec.XML = "", nil, it.Raw
	}
	m, err := harvest.RecordMessage(harvest.SubjectCompare, rec)
	if err != nil {
		return err
	}
	return l.h.pub.Publish(harvest.SubjectCompare, m)
}

// crossSource returns the CrossSourceDuplicate warning of an item the portal harvested from
// elsewhere whose origin identifier is live in another harvest source, or nil.
func (l *Run) crossSource(it *PortalItem) (*harvest.RecordError, error) {
	other, err := l.h.store.DatasetFindElsewhere(l.ctx, &store.DatasetFindElsewhereParams{SourceID: l.job.SourceID,
		Identifier: it.Origin.Identifier})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up cross-source duplicate: %w", err)
	}
	via := ""
	if it.Origin.Source != "" {
		via = fmt.Sprintf(" (its harvest source %q)", it.Origin.Source)
	}
	return &harvest.RecordError{Type: harvest.TypeCrossSourceDuplicate, Severity: harvest.SeverityWarning, Message: fmt.Sprintf(
		"%s was harvested by the portal from elsewhere%s under identifier %q, which harvest source %q (%s) "+
			"already harvests as dataset %q: the same dataset is in the catalog twice",
		it.Identifier, via, it.Origin.Identifier, other.SourceName, other.SourceID, other.Slug)}, nil
}
