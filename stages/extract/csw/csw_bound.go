package csw

import "fmt"

// cswMaxPageRecords is the most records a CSW page may hold: the largest max_records. A
// server that ignores maxRecords and answers with its whole listing at once is followed only
// when that listing is no longer than this, so one page never holds more records than the
// largest page a harvest may ask for.
const cswMaxPageRecords = 1000

// cswAsked is what a request asked of the answer readCSWPage reads: the GetRecords page at
// startPosition start of maxRecords size (size 0: no bound), or (byID) a GetRecordById answer,
// of which only the first record is read.
type cswAsked struct {
	start, size int
	byID        bool
}

// bound is the most records a GetRecords page may hold, from what was asked and the
// SearchResults' attributes: maxRecords; or, on the first page (startPosition 1), the whole
// listing of numberOfRecordsMatched when that is no more than cswMaxPageRecords (the pager's
// guard takes such a page as the whole listing); and never more than numberOfRecordsReturned.
// -1 when nothing was asked (a test reading an answer alone).
func (p *pageRead) bound() int {
	most := p.asked.size
	if most <= 0 {
		return -1
	}
	if m := p.page.matched; p.asked.start == 1 && m > most && m <= cswMaxPageRecords {
		most = m
	}
	if r := p.page.returned; r >= 0 && r < most {
		most = r
	}
	return most
}

// tooMany is the error of a page holding a record past p.most: what the page may hold, and
// why.
func (p *pageRead) tooMany() error {
	a, pg := p.asked, &p.page
	switch {
	case pg.returned >= 0 && pg.returned == p.most:
		return fmt.Errorf("the page holds more records than its numberOfRecordsReturned=%d (reading stopped there)", pg.returned)
	case a.start == 1 && pg.matched > cswMaxPageRecords:
		return fmt.Errorf("the page holds more than %d records where %d were asked for (max_records): the catalogue "+
			"ignores the page size, and a page of the whole listing of %d is over the cap of %d records a page "+
			"(reading stopped there)", p.most, a.size, pg.matched, cswMaxPageRecords)
	}
	return fmt.Errorf("the page holds more than %d records where %d were asked for (max_records): the catalogue "+
		"ignores the page size, and the page is not the whole listing of %d (reading stopped there)", p.most, a.size, pg.matched)
}
