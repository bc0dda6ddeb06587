package extract

import (
	"cmp"
	"crypto/sha256"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
)

// pageGuard checks each page of a portal listing, before its items are listed, against the
// pages before it and the total the portal reported, so that a portal whose pages contradict
// themselves fails the job at that page (a *PortalListingError naming its URL) instead of
// listing the same items again and again or ending the listing where the pages say it does
// not. One guard serves every portal family (Pager). It is used from the Run's goroutine
// only.
type pageGuard struct {
	p     *Pager
	size  int  // the page size the listing pages by: Pager.PageSize, or the portal's cap (capPage)
	total int  // the first page's Total; -1 when the API reports none
	pages int  // the pages the total spans at size (0 without a total)
	whole bool // the first page held the whole listing although fewer items were asked for
	// prints are the fingerprints of the pages listed (their identifiers, or raw items for
	// those without one), by 1-based page number: a page served again is caught even when
	// its items have no usable identifier.
	prints map[[sha256.Size]byte]int
	// hint, when set, is a warning for the listing's first item: the portal caps the page size.
	hint *harvest.RecordError
}

// newPageGuard returns the guard of the listing whose first page is first, having decided the
// page size the listing goes on with:
//   - a page longer than asked for (the portal ignores the page size): with a total, when it
//     holds exactly the total it is the whole listing and no other page is fetched; otherwise
//     the job fails, since no offset can be trusted;
//   - a page shorter than asked for whose total says more items follow: the portal caps the
//     page size (CKAN's ckan.search.rows_max, say), so the listing goes on by that many items a
//     page, with a hint to set the page size option to the cap.
func newPageGuard(p *Pager, first *PortalPage) (*pageGuard, error) {
	sizeOption := cmp.Or(p.PageSizeOption, "page size")
	g := &pageGuard{p: p, size: p.PageSize, total: first.Total, prints: map[[sha256.Size]byte]int{}}
	if g.total < 0 {
		return g, nil // checkSequential checks each page
	}
	n := len(first.Items)
	switch {
	case n > p.PageSize && n == g.total:
		g.whole = true
	case n > p.PageSize:
		return nil, g.errorf(first, "the page has %d items where %d were asked for (%s): the %s ignores "+
			"the page size, and the page is not the whole listing of %d", n, p.PageSize, sizeOption, p.server(), g.total)
	case n > 0 && n < p.PageSize && g.total > n && !first.Last:
		g.size = n
		g.hint = &harvest.RecordError{Type: harvest.TypePortalPageSize, Severity: harvest.SeverityWarning, Message: fmt.Sprintf(
			"%s served %d items a page where %d were asked for: the listing went on %d at a time; set the "+
				"source's %s option to %d (--option %s=%d)", p.Name, n, p.PageSize, n, sizeOption, n, sizeOption, n)}
	}
	g.pages = max((g.total+g.size-1)/g.size, 1)
	if g.whole {
		g.pages = 1
	}
	if maxPages := cmp.Or(p.MaxPages, DefaultMaxPortalPages); p.CapTotal && g.pages > maxPages {
		return nil, g.errorf(first, "the count of %d items spans %d pages of %d, over the cap of %d pages: the "+
			"listing is not paged through (a larger %s makes fewer pages)", g.total, g.pages, g.size, maxPages, sizeOption)
	}
	return g, nil
}

// offset is the offset of page k (0-based).
func (g *pageGuard) offset(k int) int { return g.p.Start + k*g.size }

// errorf is the *PortalListingError of page.
func (g *pageGuard) errorf(page *PortalPage, format string, args ...any) error {
	return &PortalListingError{Name: g.p.Name, URL: page.URL, Err: fmt.Errorf(format, args...)}
}

// check checks page k (0-based) of a listing with a total: its total is the first page's, it
// holds no more items than the total leaves for it (a count smaller than the listing), a page
// before the last is full and not Last, and it repeats no page before it (repeated).
func (g *pageGuard) check(page *PortalPage, k int, seen map[string]int) error {
	if page.Total >= 0 && page.Total != g.total {
		return g.errorf(page, "the total changed mid-listing, from %d to %d: items were added or removed while it "+
			"was listed, so its pages shifted; nothing is deleted, harvest again", g.total, page.Total)
	}
	want := min(g.size, max(g.total-k*g.size, 0))
	if g.whole {
		want = g.total
	}
	if n := len(page.Items); n > want {
		return g.errorf(page, "page %d has %d items where the %s's count of %d leaves %d for it: the count "+
			"is smaller than the listing, which would end before its last items", k+1, n, g.p.server(), g.total, want)
	}
	if k < g.pages-1 && (len(page.Items) < g.size || page.Last) {
		return g.errorf(page, "page %d of %d has %d items, %d were asked for: the listing would end short of its "+
			"total of %d", k+1, g.pages, len(page.Items), g.size, g.total)
	}
	return g.repeated(page, k, seen)
}

// checkSequential checks page k of a listing without a total: it holds no more items than
// asked for (unless it is Last: an API that does not page, as DKAN's metastore), and repeats no
// page before it.
func (g *pageGuard) checkSequential(page *PortalPage, k int, seen map[string]int) error {
	if n := len(page.Items); n > g.size && !page.Last {
		return g.errorf(page, "page %d has %d items where %d were asked for: the %s ignores the page size, "+
			"and reports no total to tell whether the page is the whole listing", k+1, n, g.size, g.p.server())
	}
	return g.repeated(page, k, seen)
}

// repeated fails page k when it repeats what earlier pages listed: an identifier an earlier
// page listed (the portal ignores the offset, serves pages that overlap, or its order shifted
// under the listing, so other items may never be served), or the very items of an earlier
// page. The whole page is refused before any of its items is listed, so a portal serving one
// page forever costs one page, not one error row per repeat.
func (g *pageGuard) repeated(page *PortalPage, k int, seen map[string]int) error {
	if len(page.Items) == 0 {
		return nil
	}
	h := sha256.New()
	for i := range page.Items {
		it := &page.Items[i]
		if it.Err == nil && it.Identifier != "" {
			if pos, dup := seen[it.Identifier]; dup {
				return g.errorf(page, "page %d repeats %s, listed already as item #%d: the %s serves pages that "+
					"overlap (it ignores the offset, or its order shifted), so some items may never be listed",
					k+1, it.Identifier, pos+1, g.p.server())
			}
			h.Write([]byte(it.Identifier))
		} else {
			h.Write(it.Raw)
		}
		h.Write([]byte{0})
	}
	var print [sha256.Size]byte
	h.Sum(print[:0])
	if earlier, dup := g.prints[print]; dup {
		return g.errorf(page, "page %d is page %d again: the %s ignores the offset", k+1, earlier, g.p.server())
	}
	g.prints[print] = k + 1
	return nil
}

// afterLast is the offset of the page past the last one the total spans, to be fetched to
// check that the listing really ends there; -1 when no such check is needed: the last page
// was short of a full page (the portal ran out of items where the total said), or the first
// page was the whole listing, or the API serves no item past the last (Pager.ResultWindow). A
// Last page is checked too: a portal whose count is smaller than its listing may well say, by
// the same count, that no page follows.
func (g *pageGuard) afterLast(last *PortalPage) int {
	if g.whole || g.total == 0 || len(last.Items) < g.size ||
		(g.p.ResultWindow > 0 && g.pages*g.size >= g.p.ResultWindow) {
		return -1
	}
	return g.offset(g.pages)
}

// checkAfterLast checks the page past the last one the total spans: it must be empty, else
// the count is smaller than the listing (the pages go on past it).
func (g *pageGuard) checkAfterLast(page *PortalPage) error {
	if n := len(page.Items); n > 0 {
		return g.errorf(page, "the page after the last one of the %s's count of %d has %d items: the count is "+
			"smaller than the listing, which would end before its last items", g.p.server(), g.total, n)
	}
	return nil
}
