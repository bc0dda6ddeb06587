package portal

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/extract/portal/portaltest"
	"github.com/harvester-dev/harvester/store"
)

// listingCase is a portal family whose paging a test runs against a hostile emulator.
type listingCase struct {
	api        portaltest.API
	typ        harvest.SourceType
	options    map[string]string
	sizeOption string
	paged      bool                            // the API reports a total (ODS v1's nhits is not trusted)
	identifier func(base string, i int) string // the harvest identifier of item i
}

var listingCases = []listingCase{
	{portaltest.SocrataAPI, harvest.SourceSocrata, nil, "limit", true,
		func(_ string, i int) string { return SocrataIdentifier("127.0.0.1", portaltest.ItemID(i)) }},
	{portaltest.ArcGISSearchAPI, harvest.SourceArcGIS, map[string]string{"api": "search"}, "num", true,
		func(base string, i int) string { return ArcGISItemIdentifier(base, portaltest.ItemID(i)) }},
	{portaltest.ArcGISHubAPI, harvest.SourceArcGIS, map[string]string{"api": "hub"}, "num", true,
		func(base string, i int) string { return ArcGISHubIdentifier(base, portaltest.ItemID(i)) }},
	{portaltest.ODSAPI, harvest.SourceOpenDataSoft, nil, "limit", true,
		func(base string, i int) string { return ODSIdentifier(base, "da_"+portaltest.ItemID(i)) }},
	{portaltest.ODSV1API, harvest.SourceOpenDataSoft, map[string]string{"api": "v1"}, "limit", false,
		func(base string, i int) string { return ODSIdentifier(base, portaltest.ItemID(i)) }},
}

// run lists srv with page size size, the source having a live dataset for each of the first
// live items.
func (c *listingCase) run(t *testing.T, srv *portaltest.Listing, size, live int) *extractRun {
	t.Helper()
	options := maps.Clone(c.options)
	if options == nil {
		options = map[string]string{}
	}
	options[c.sizeOption] = fmt.Sprint(size)
	var ids []string
	for i := range live {
		ids = append(ids, c.identifier(srv.Server.URL, i))
	}
	return runPortal(t, openSQLite(t), c.typ, srv.Server.URL, options, ids, testPortalFetch())
}

// runWithCount lists a portal of items items (all of them live) whose count says count, 10 a
// page.
func (c *listingCase) runWithCount(t *testing.T, items, count int) *extractRun {
	t.Helper()
	srv := portaltest.NewListing(t, c.api, items)
	srv.CountFor = func(int) int { return count }
	return c.run(t, srv, 10, items)
}

// pageParam is the query of the page at item offset k (0-based), as the job error names it.
func (c *listingCase) pageParam(k int) string {
	return fmt.Sprintf("%s=%d", c.api.OffsetParam, c.api.Start+k)
}

// requireListedClean: the run listed n items, with no job error and no error row.
func requireListedClean(t *testing.T, r *extractRun, n int) {
	t.Helper()
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t))
	require.Zero(t, errorRows(t, r))
	require.Equal(t, n, r.listed(t))
}

// eachListing runs fn as a parallel subtest for each listing case (with pagedOnly, each whose
// API reports a total).
func eachListing(t *testing.T, pagedOnly bool, fn func(t *testing.T, c listingCase)) {
	for _, c := range listingCases {
		if pagedOnly && !c.paged {
			continue
		}
		t.Run(c.api.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, c)
		})
	}
}

// errorRows counts the record error rows the run settled.
func errorRows(t *testing.T, r *extractRun) int {
	n := 0
	for _, s := range r.settled(t) {
		if s.Kind == harvest.SettledOutcome {
			n++
		}
	}
	return n
}

// TestPortalRepeatedPageFailsTheJob: a portal serving its first page for every offset, under a
// count of a million (S4: OpenDataSoft v1, which reports no total trusted, never ended; D10:
// every repeat was an error row), fails the job at the second page, naming its URL, with no
// error row and nothing deleted.
func TestPortalRepeatedPageFailsTheJob(t *testing.T) {
	t.Parallel()
	eachListing(t, false, func(t *testing.T, c listingCase) {
		srv := portaltest.NewListing(t, c.api, 30)
		srv.StartFor = func(int) int { return c.api.Start }
		srv.CountFor = func(int) int { return 1_000_000 }
		r := c.run(t, srv, 10, 30)
		requireFailed(t, r, srv.Server.URL+c.api.Path, c.pageParam(10), "page 2 repeats", "listed already as item #1")
		require.Zero(t, errorRows(t, r))
		require.Len(t, r.records(t), 10)
		require.Less(t, len(srv.Requests()), 10, "the listing stops within a window of pages")
	})
}

// TestCKANRepeatedPageUnderALargeCount: D10's CKAN, count 1,000,000 and the same page for every
// start: one page listed, no error row.
func TestCKANRepeatedPageUnderALargeCount(t *testing.T) {
	t.Parallel()
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, portaltest.CorpusPackages(t)[0], 300))
	ckan.StartFor = func(int) int { return 0 }
	ckan.CountFor = func(int) int { return 1_000_000 }
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), nil, nil, testPortalFetch())
	requireFailed(t, r, "start=100", "page 2 repeats "+ckan.URL()+"/dataset/pkg-00001")
	require.Zero(t, errorRows(t, r))
	require.Len(t, r.records(t), 100)
	require.Less(t, len(ckan.Requests()), 10)
}

// TestPortalCountSmallerThanListingFailsTheJob (D9): a count smaller than the items its pages
// hold fails the job naming the page, whether a page holds more than the count leaves for it
// or the page after the last full one is not empty; nothing is deleted.
func TestPortalCountSmallerThanListingFailsTheJob(t *testing.T) {
	t.Parallel()
	eachListing(t, true, func(t *testing.T, c listingCase) {
		r := c.runWithCount(t, 30, 15)
		requireFailed(t, r, c.pageParam(10), "page 2 has 10 items where the portal's count of 15 leaves 5")

		r = c.runWithCount(t, 30, 20) // two full pages: the third must be empty
		requireFailed(t, r, c.pageParam(20), "the page after the last one of the portal's count of 20 has 10 items")
	})
}

// TestCKANCountSmallerThanListingDeletesNothing: D9's CKAN, 300 datasets harvested, then the
// portal says count 150 while its pages hold 300.
func TestCKANCountSmallerThanListingDeletesNothing(t *testing.T) {
	t.Parallel()
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, portaltest.CorpusPackages(t)[0], 300))
	var live []string
	for i := range 300 {
		live = append(live, CKANIdentifier(ckan.URL(), fmt.Sprintf("pkg-%05d", i+1)))
	}
	ckan.CountFor = func(int) int { return 150 }
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), nil, live, testPortalFetch())
	requireFailed(t, r, "start=100", "page 2 has 100 items where the portal's count of 150 leaves 50")
}

// TestPortalCountLargerThanListingFailsTheJob: a count larger than the items served fails the
// job naming the last page.
func TestPortalCountLargerThanListingFailsTheJob(t *testing.T) {
	t.Parallel()
	eachListing(t, true, func(t *testing.T, c listingCase) {
		r := c.runWithCount(t, 25, 30)
		requireFailed(t, r, c.pageParam(20), "ended short of its total: 25 distinct items listed (25 served), the portal reported 30")
	})
}

// TestPortalIgnoredPageSize (D24): a portal serving every item on every page whatever the page
// size asks for. With a total that the page holds whole, the page is the listing (no
// DuplicateIdentifier rows, no other page fetched); otherwise, and without a total, the job
// fails naming the page.
func TestPortalIgnoredPageSize(t *testing.T) {
	t.Parallel()
	eachListing(t, false, func(t *testing.T, c listingCase) {
		srv := portaltest.NewListing(t, c.api, 30)
		srv.IgnoreSize = true
		srv.StartFor = func(int) int { return c.api.Start }
		r := c.run(t, srv, 10, 30)
		if !c.paged {
			requireFailed(t, r, c.pageParam(0), "page 1 has 30 items where 10 were asked for")
			return
		}
		requireListedClean(t, r, 30)
		require.Len(t, srv.Requests(), 1)

		srv.CountFor = func(int) int { return 40 }
		r = c.run(t, srv, 10, 30)
		requireFailed(t, r, c.pageParam(0), "the page has 30 items where 10 were asked for ("+c.sizeOption+")",
			"not the whole listing of 40")
	})
}

// TestCKANIgnoringRowsIsOneWholePage: D24's CKAN, all 300 packages on every page whatever rows
// and start say: one page, 300 records, no DuplicateIdentifier row.
func TestCKANIgnoringRowsIsOneWholePage(t *testing.T) {
	t.Parallel()
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, portaltest.CorpusPackages(t)[0], 300))
	ckan.IgnoreRows = true
	ckan.StartFor = func(int) int { return 0 }
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), nil, nil, testPortalFetch())
	requireListedClean(t, r, 300)
	require.Len(t, ckan.Requests(), 1)
}

// TestPortalCappedPageSize: a portal serving fewer items a page than asked for (a server-side
// cap) is listed at its cap, and the first record carries a hint naming the option to set.
func TestPortalCappedPageSize(t *testing.T) {
	t.Parallel()
	eachListing(t, true, func(t *testing.T, c listingCase) { // a short page ends a listing without a total
		srv := portaltest.NewListing(t, c.api, 30)
		srv.MaxSize = 4
		r := c.run(t, srv, 10, 0)
		requireListedClean(t, r, 30)
		recs := r.records(t)
		require.Len(t, recs, 30)
		require.Len(t, recs[0].Warnings, 1)
		w := recs[0].Warnings[0]
		require.Equal(t, "PortalPageSize", w.Type)
		require.Equal(t, harvest.SeverityWarning, w.Severity)
		require.Contains(t, w.Message, "served 4 items a page where 10 were asked for")
		require.Contains(t, w.Message, "--option "+c.sizeOption+"=4")
		for _, rec := range recs[1:] {
			require.Empty(t, rec.Warnings)
		}
		for _, req := range srv.Requests()[1:] {
			require.True(t, strings.Contains(req, c.api.SizeParam+"=10"), req)
		}
	})
}

// TestCKANCappedRows: a CKAN capping rows at 100 when 1000 are asked for is listed 100 at a
// time, with the hint to set rows=100.
func TestCKANCappedRows(t *testing.T) {
	t.Parallel()
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, portaltest.CorpusPackages(t)[0], 250))
	ckan.MaxRows = 100
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), map[string]string{"rows": "1000"}, nil, testPortalFetch())
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t))
	require.Equal(t, 250, r.listed(t))
	recs := r.records(t)
	require.Equal(t, "PortalPageSize", recs[0].Warnings[0].Type)
	require.Contains(t, recs[0].Warnings[0].Message, "set the source's rows option to 100 (--option rows=100)")
	require.Len(t, ckan.Requests(), 3, "start=0, 100, 200")
}

// listPager runs ListPager with p on a job of a new source and returns the job's errors and
// the Listings sent.
func listPager(t *testing.T, p *extract.Pager) (jobErrors []*store.JobError, listings int) {
	t.Helper()
	st := openSQLite(t)
	ctx := context.Background()
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "e", URL: "https://portal.example", SourceType: harvest.SourceOpenDataSoft,
		SchemaType: harvest.SchemaDCATUS11NonFederal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	pub := publishFunc(func(subject string, _ ...*harvest.Message) error {
		if subject == harvest.SubjectListing {
			listings++
		}
		return nil
	})
	h := newHandler(st, pub, fetch.Config{}, extract.WithConfig(extract.Config{StallTimeout: time.Millisecond}))
	require.NoError(t, asRunner(ctx, st, pub, h.ListPager(ctx, &harvest.Job{JobID: job.ID, SourceID: src.ID,
		JobType: harvest.JobHarvest, SourceType: harvest.SourceOpenDataSoft}, p)))
	jobErrors, err = st.JobErrorList(ctx, job.ID)
	require.NoError(t, err)
	return jobErrors, listings
}

// TestPortalListingWithoutTotalStopsAtMaxPages: a listing without a total whose portal serves
// new items at every offset fails the job at the page past extract.Pager.MaxPages, naming it.
func TestPortalListingWithoutTotalStopsAtMaxPages(t *testing.T) {
	t.Parallel()
	fetched := 0
	p := &extract.Pager{Name: "endless", PageSize: 2, MaxPages: 3, Page: func(_ context.Context, offset int) (*extract.PortalPage, error) {
		fetched++
		return &extract.PortalPage{URL: fmt.Sprint("https://portal.example/page?start=", offset), Total: -1, Items: []extract.PortalItem{
			{Identifier: fmt.Sprint("id-", offset), Raw: []byte(`{}`)}, {Identifier: fmt.Sprint("id-", offset+1), Raw: []byte(`{}`)}}}, nil
	}}
	errs, listings := listPager(t, p)
	require.Zero(t, listings, "no Listing: nothing is deleted")
	require.Equal(t, 4, fetched)
	require.Len(t, errs, 1)
	require.Contains(t, errs[0].Message, "page https://portal.example/page?start=6: the listing goes on past 3 pages")
}

// TestPortalRepeatedPageWithoutIdentifiers: a page of items without identifiers served for
// every offset is caught by its items: the job fails at page 2.
func TestPortalRepeatedPageWithoutIdentifiers(t *testing.T) {
	t.Parallel()
	p := &extract.Pager{Name: "anonymous", PageSize: 2, Page: func(_ context.Context, offset int) (*extract.PortalPage, error) {
		return &extract.PortalPage{URL: fmt.Sprint("https://portal.example/page?start=", offset), Total: -1, Items: []extract.PortalItem{
			{Raw: []byte(`{"a": 1}`), Err: fmt.Errorf("no id")}, {Raw: []byte(`{"a": 2}`), Err: fmt.Errorf("no id")}}}, nil
	}}
	errs, listings := listPager(t, p)
	require.Zero(t, listings)
	require.Len(t, errs, 1)
	require.Contains(t, errs[0].Message, "page https://portal.example/page?start=2: page 2 is page 1 again")
}
