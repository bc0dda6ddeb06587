package csw

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// listCSW lists a CSW source (harvest.SourceCSW): GetCapabilities, then GetRecords pages
// (resultType results, ElementSetName full, the output schema cswCapabilities.service
// chooses) by startPosition/maxRecords, through the portal pager and its guard (extract.Handler.ListPager):
// each record a harvest record of the source's schema type whose XML is the record element
// as a standalone document, keyed by its identifier (gmd:fileIdentifier, dc:identifier, or an
// FGDC record's idinfo/datasetid, else its citation's own onlink: see csw_key.go). Every page
// is checked against the CSW's own counts too (cswPageCheck). Capabilities that cannot be
// read or offer no GetRecords, an OWS ExceptionReport, a page that contradicts the counts:
// each fails the job naming the request, and no Listing is sent, so nothing is deleted. A
// harvest after a complete one lists incrementally (cswSince, listCSWSince) unless the
// source's modified_filter is off.
func (h *handler) listCSW(ctx context.Context, job *harvest.Job) error {
	s, err := h.cswService(ctx, job)
	if err != nil {
		return h.Fail(ctx, job, harvest.TypeExtractError, err)
	}
	size, err := extract.PageSize(job, "max_records", 1000)
	if err != nil {
		return h.Fail(ctx, job, harvest.TypeExtractError, err)
	}
	q := &cswQuery{elementSet: "full", cql: extract.Setting(job, "constraint")}
	since, err := h.cswSince(ctx, job)
	if err != nil {
		return err // the store: a retry may cure it
	}
	if !since.IsZero() {
		return h.listCSWSince(ctx, job, s, q, size, since)
	}
	return h.ListPager(ctx, job, h.cswPager(s, q, size))
}

// cswService reads the source's capabilities and decides how to harvest it.
func (h *handler) cswService(ctx context.Context, job *harvest.Job) (*cswService, error) {
	base, err := cswBaseURL(job.URL)
	if err != nil {
		return nil, err
	}
	caps, where, err := cswCapabilitiesFetch(ctx, h.Fetch(), base, h.Config().MaxRecordBytes)
	if err != nil {
		return nil, err
	}
	s, err := caps.service(base, job.SchemaType, job.Options)
	if err != nil {
		return nil, fmt.Errorf("GetCapabilities %s: %w", where, err)
	}
	return s, nil
}

// cswPager is the pager of a GetRecords listing: pages of size records from startPosition 1,
// at most extract.DefaultMaxPortalPages of them (a numberOfRecordsMatched spanning more fails the job
// at its first page: 1,000,000 matched at 10 a page is never paged through).
func (h *handler) cswPager(s *cswService, q *cswQuery, size int) *extract.Pager {
	return &extract.Pager{Name: "CSW GetRecords " + s.endpoint, PageSize: size, PageSizeOption: "max_records", Start: 1,
		MaxPages: extract.DefaultMaxPortalPages, CapTotal: true, Server: "catalogue",
		Page: func(ctx context.Context, start int) (*extract.PortalPage, error) {
			page, where, err := h.cswGetRecords(ctx, s, q, start, size)
			if err != nil {
				return nil, &extract.PortalListingError{Name: "CSW GetRecords", Err: err}
			}
			last, err := cswPageCheck(page, start)
			if err != nil {
				return nil, &extract.PortalListingError{Name: "CSW GetRecords", URL: where, Err: err}
			}
			return &extract.PortalPage{URL: where, Total: page.matched, Last: last, Items: cswItems(page.records)}, nil
		}}
}

// cswPageCheck checks a GetRecords page at startPosition start against its SearchResults'
// counts, and says whether it is the last one: numberOfRecordsMatched is required;
// numberOfRecordsReturned, when given, is the number of records the page holds; nextRecord 0
// (or past numberOfRecordsMatched) ends the listing, and only once every matched record was
// served; otherwise it is start plus the records returned (one that does not advance, goes
// back, or skips records fails: paging never follows it, so a chain or cycle of nextRecord
// costs nothing). A missing nextRecord ends the listing where the count does.
func cswPageCheck(p *cswPage, start int) (last bool, err error) {
	n := len(p.records)
	switch {
	case p.matched < 0:
		return false, errors.New("csw:SearchResults has no numberOfRecordsMatched")
	case p.returned >= 0 && p.returned != n:
		return false, fmt.Errorf("numberOfRecordsReturned=%d, but the page holds %d records", p.returned, n)
	}
	through := start + n - 1 // the last record served so far
	switch next := p.next; {
	case next < 0:
		return through >= p.matched, nil
	case next == 0 || next > p.matched:
		if through < p.matched && n > 0 {
			return false, fmt.Errorf("nextRecord=%d says no record follows record %d, but numberOfRecordsMatched=%d: "+
				"the count lies or the listing ends short", next, through, p.matched)
		}
		return true, nil
	case next < start:
		return false, fmt.Errorf("nextRecord=%d goes back before startPosition=%d", next, start)
	case next == start:
		return false, fmt.Errorf("nextRecord=%d does not advance past startPosition=%d", next, start)
	case next != through+1:
		return false, fmt.Errorf("nextRecord=%d, but startPosition=%d and %d records returned make it %d",
			next, start, n, through+1)
	}
	return false, nil
}

// cswItems are a page's records as portal items (extract.PortalItem.XML).
func cswItems(records []cswRecord) []extract.PortalItem {
	items := make([]extract.PortalItem, 0, len(records))
	for i := range records {
		r := &records[i]
		it := extract.PortalItem{Identifier: r.identifier, Raw: r.xml, XML: true, IdentifierSize: r.idSize}
		if r.tooLarge {
			it.Raw, it.TooLarge, it.Size = nil, true, r.size
		}
		if r.identifier == "" && !r.tooLarge {
			it.Err = fmt.Errorf("a %s record has no identifier (%s)", xmlName(r.root), cswIdentifierPath(r.root))
		}
		items = append(items, it)
	}
	return items
}

// cswIdentifierPath names where a record of root element root has its identifier.
func cswIdentifierPath(root xml.Name) string {
	switch root.Local {
	case "MD_Metadata", "MI_Metadata":
		return "gmd:fileIdentifier/gco:CharacterString"
	case "Record", "SummaryRecord", "BriefRecord":
		return "dc:identifier"
	case "metadata":
		return "idinfo/datasetid, or an idinfo/citation/citeinfo/onlink that is not a distribution's " +
			"(distinfo/stdorder/digform/digtopt/onlinopt/computer/networka/networkr, or an onlink with a type)"
	}
	return "a record of this kind has no identifier the harvest knows"
}
