package portal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/stages/extract/portal/portaltest"
	"github.com/harvester-dev/harvester/store"
)

// portal is the portal source of that type at url, with the portal items' schema type
// (non-federal DCAT-US, the harvest command's default for a portal).
func portal(sourceType harvest.SourceType, url string) pipelinetest.Source {
	return pipelinetest.Source{URL: url, SourceType: sourceType, SchemaType: pipelinetest.NonFederal}
}

// TestHarvestCKANPortal: a CKAN portal through every stage on Postgres and NATS: the first run
// adds every package that validates as non-federal DCAT-US (the rest are validation errors
// naming the field they lack), the second is all unchanged, a package the portal dropped is
// deleted, and a listing that ends short of its count fails and deletes nothing.
func TestHarvestCKANPortal(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ckan := portaltest.NewCKAN(t, portaltest.CorpusPackages(t))
	harvestCKAN := func() pipelinetest.Report { return h.Harvest(t, portal(harvest.SourceCKAN, ckan.URL())) }

	first := harvestCKAN()
	require.Equal(t, "complete", first.Status, "%+v", first)
	require.Equal(t, 13, first.Total)
	require.Equal(t, 9, first.Added, "DataSud's 7, EnviDat's and catalog.data.gov's package")
	require.Equal(t, 4, first.Errored, "4 packages lack a publisher or contact point")
	require.Equal(t, 9, first.Validated)
	src, err := h.Store.SourceGet(context.Background(), first.SourceID)
	require.NoError(t, err)
	require.Equal(t, "ckan", string(src.SourceType))
	require.Equal(t, pipelinetest.NonFederal, src.SchemaType, "a portal's schema type is non-federal")
	d, err := h.Store.DatasetGet(context.Background(), &store.DatasetGetParams{SourceID: first.SourceID,
		Identifier: ckan.URL() + "/dataset/cfa98601-185f-4194-bc0f-119fc23a194b"})
	require.NoError(t, err)
	var dcat map[string]any
	require.NoError(t, json.Unmarshal(d.DCAT, &dcat))
	require.Equal(t, "Canispaces - Ville de Gap", dcat["title"])
	require.Equal(t, ckan.URL()+"/dataset/canispaces----ville-de-gap", dcat["landingPage"])
	rec, err := h.Store.RecordGet(context.Background(), d.RecordID)
	require.NoError(t, err)
	require.Contains(t, rec.SourceRaw, `"owner_org"`, "source_raw is the package as served")

	second := harvestCKAN()
	pipelinetest.MustComplete(t, second)
	require.Equal(t, 9, second.Unchanged)
	require.Equal(t, 4, second.Errored, "invalid packages stay errored")
	require.Zero(t, second.Added+second.Updated+second.Deleted)

	pkgs := portaltest.CorpusPackages(t)
	ckan.SetPackages(t, pkgs[1:]) // DataSud's first package leaves the portal
	third := harvestCKAN()
	pipelinetest.MustComplete(t, third)
	require.Equal(t, 1, third.Deleted)
	require.Equal(t, 8, third.Unchanged)
	require.Len(t, h.LiveIdentifiers(t, first.SourceID), 8)

	ckan.CountFor = func(int) int { return 20 } // the portal says 20, serves 12
	short := harvestCKAN()
	require.Equal(t, "error", short.Status)
	require.Len(t, short.JobErrors, 1)
	require.Contains(t, short.JobErrors[0], "ended short of its total: 12 distinct items listed (12 served), the portal reported 20")
	require.Zero(t, short.Deleted)
	require.Len(t, h.LiveIdentifiers(t, first.SourceID), 8, "nothing deleted")
}

// TestHarvestDKANPortal: a DKAN 2 metastore's datasets are added, then unchanged, and a dataset
// it dropped is deleted.
func TestHarvestDKANPortal(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	items := portaltest.CorpusDKANItems(t)
	dkan := portaltest.NewDKAN(t, items)
	src := portal(harvest.SourceDKAN, dkan.Server.URL)
	first := h.Harvest(t, src)
	pipelinetest.MustComplete(t, first)
	require.Equal(t, 10, first.Added)
	second := h.Harvest(t, src)
	pipelinetest.MustComplete(t, second)
	require.Equal(t, 10, second.Unchanged)
	dkan.SetItems(items[1:])
	third := h.Harvest(t, src)
	pipelinetest.MustComplete(t, third)
	require.Equal(t, 1, third.Deleted)
	require.Equal(t, 9, third.Unchanged)
}

// TestPortalListingFailingMidWaySettlesItsRecords (D15): a CKAN listing that fails at once at
// its third page (its count changed), after 200 packages went down the pipeline, ends the job
// only once they settled: its counts are the datasets written, no record is left pending, and
// the next run finds them unchanged (no false updates) and adds the rest.
func TestPortalListingFailingMidWaySettlesItsRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := pipelinetest.New(t)
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, portaltest.CorpusPackages(t)[0], 300))
	ckan.CountFor = func(start int) int {
		if start == 200 {
			return 301 // no retry: the listing fails as soon as the page is read
		}
		return 300
	}
	failed := h.Harvest(t, portal(harvest.SourceCKAN, ckan.URL()))
	require.Equal(t, "error", failed.Status)
	require.Len(t, failed.JobErrors, 1)
	require.Contains(t, failed.JobErrors[0], "start=200")
	require.Contains(t, failed.JobErrors[0], "the total changed mid-listing")
	written := len(h.LiveIdentifiers(t, failed.SourceID))
	require.Equal(t, 200, written, "the two pages listed went through")
	require.Equal(t, written, failed.Added, "the job counts every dataset it wrote")

	conn, err := pgx.Connect(ctx, h.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var pending int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM harvest_record WHERE harvest_job_id = $1 AND status = 'pending'`,
		failed.JobID).Scan(&pending))
	require.Zero(t, pending, "a failed job leaves no pending record")

	ckan.CountFor = nil
	next := h.Harvest(t, portal(harvest.SourceCKAN, ckan.URL()))
	require.Equal(t, "complete", next.Status, "%+v", next)
	require.Zero(t, next.Updated, "no false updates")
	require.Equal(t, written, next.Unchanged)
	require.Equal(t, 300-written, next.Added)
}

// TestPortalCappedRowsHint: a CKAN that serves 100 packages a page where 1000 were asked for is
// harvested whole, 100 at a time, and the job carries one PortalPageSize warning telling the
// operator to set rows=100.
func TestPortalCappedRowsHint(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, portaltest.CorpusPackages(t)[0], 250))
	ckan.MaxRows = 100
	src := portal(harvest.SourceCKAN, ckan.URL())
	src.Options = map[string]string{"rows": "1000"}
	rep := h.Harvest(t, src)
	require.Equal(t, "complete", rep.Status, "%+v", rep)
	require.Equal(t, 250, rep.Added)
	summary, err := h.Store.RecordErrorSummary(context.Background(), rep.JobID)
	require.NoError(t, err)
	require.Equal(t, []*store.RecordErrorCount{{Type: "PortalPageSize", Severity: harvest.SeverityWarning, Count: 1}}, summary)
}

// pagedPortal emulates the listing API of a Socrata domain (Discovery API), an ArcGIS portal
// (sharing/rest/search) or an OpenDataSoft portal (Explore API v2.1 catalog/datasets) over a
// list of items, paged as the platform pages, with faults under the test's control.
type pagedPortal struct {
	srv  *httptest.Server
	kind string // "socrata", "arcgis", "opendatasoft"

	mu    sync.Mutex
	items []json.RawMessage
	tries map[int]int // requests per offset
	// fault, when set, answers a request for the page at offset (0-based) on its try (1 for
	// the first) with that status instead of the page; 0 serves the page.
	fault func(offset, try int) (status int, retryAfter string)
	// total, when set, is the total reported on the page at offset (0-based).
	total func(offset int) int
}

func newPagedPortal(t *testing.T, kind string, items []json.RawMessage) *pagedPortal {
	p := &pagedPortal{kind: kind, items: items, tries: map[int]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

// setFault sets fault and counts tries afresh.
func (p *pagedPortal) setFault(f func(offset, try int) (int, string)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault, p.tries = f, map[int]int{}
}

func (p *pagedPortal) setItems(items []json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.items, p.tries, p.fault, p.total = items, map[int]int{}, nil, nil
}

func (p *pagedPortal) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	num := func(name string) int { n, _ := strconv.Atoi(q.Get(name)); return n }
	var offset, size int
	var path string
	switch p.kind {
	case "socrata":
		path, offset, size = "/api/catalog/v1", num("offset"), num("limit")
	case "arcgis":
		path, offset, size = "/sharing/rest/search", num("start")-1, num("num")
	case "opendatasoft":
		path, offset, size = "/api/explore/v2.1/catalog/datasets", num("offset"), num("limit")
	}
	if r.URL.Path != path || size <= 0 || offset < 0 {
		http.Error(w, `{"error": "not found"}`, http.StatusNotFound)
		return
	}
	p.mu.Lock()
	p.tries[offset]++
	try, items := p.tries[offset], p.items
	fault, totalFor := p.fault, p.total
	p.mu.Unlock()
	if fault != nil {
		if status, retryAfter := fault(offset, try); status != 0 {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			http.Error(w, "<html><head><title>Server Error</title></head></html>", status)
			return
		}
	}
	total := len(items)
	if totalFor != nil {
		total = totalFor(offset)
	}
	page := items[min(offset, len(items)):min(offset+size, len(items))]
	var body any
	switch p.kind {
	case "socrata":
		body = map[string]any{"results": page, "resultSetSize": total, "timings": map[string]any{"serviceMillis": 1}}
	case "arcgis":
		next := offset + size + 1
		if offset+size >= total {
			next = -1
		}
		body = map[string]any{"total": total, "start": offset + 1, "num": len(page), "nextStart": next, "results": page}
	case "opendatasoft":
		body = map[string]any{"total_count": total, "results": page}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// withMember returns the JSON object item with path (members, outermost first) set to v.
func withMember(t *testing.T, item json.RawMessage, v any, path ...string) json.RawMessage {
	t.Helper()
	var obj map[string]any
	require.NoError(t, json.Unmarshal(item, &obj))
	cur := obj
	for _, k := range path[:len(path)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = v
	out, err := json.Marshal(obj)
	require.NoError(t, err)
	return out
}

func corpusArray(t *testing.T, file, member string) []json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(corpustest.Path(t, file))
	require.NoError(t, err)
	var env map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &env))
	var items []json.RawMessage
	require.NoError(t, json.Unmarshal(env[member], &items))
	return items
}

// socrataItems is the corpus's 7 Discovery API results (2 with a Common-Core contact, so
// valid; 5 without one, invalid as non-federal DCAT-US) and n-7 copies of the data.cms.gov
// result under new 4x4 ids (valid): wantValid of them are valid. Every result is of the domain
// the test portal is served on, 127.0.0.1 (a result of another domain is not harvested).
func socrataItems(t *testing.T, n int) (items []json.RawMessage, wantValid int) {
	const domain = "127.0.0.1"
	results := corpusArray(t, "socrata/discovery-api-catalog-v1-datasets.json", "results")
	for _, r := range results {
		items = append(items, withMember(t, r, domain, "metadata", "domain"))
	}
	for i := len(items); i < n; i++ {
		id := fmt.Sprintf("s%03d-%04d", i/1000, i%10000)
		it := withMember(t, results[2], id, "resource", "id")
		it = withMember(t, it, domain, "metadata", "domain")
		it = withMember(t, it, "https://data.example.gov/d/"+id, "permalink")
		items = append(items, withMember(t, it, fmt.Sprintf("Dataset %d", i), "resource", "name"))
	}
	return items, 2 + n - len(results)
}

// arcgisItems is the corpus's search page (100 Hub site items, without a contact e-mail, so
// invalid as non-federal DCAT-US) and n-100 copies of its first item under new ids with an
// organization contact e-mail (valid).
func arcgisItems(t *testing.T, n int) (items []json.RawMessage, wantValid int) {
	results := corpusArray(t, "portals/arcgis/arcgis-online-search-hub-sites-page1-nextstart-101.json", "results")
	items = append(items, results...)
	for i := len(items); i < n; i++ {
		it := withMember(t, results[0], fmt.Sprintf("%032x", i), "id")
		it = withMember(t, it, "gis@example.gov", "orgContactEmail")
		items = append(items, withMember(t, it, fmt.Sprintf("Layer %d", i), "title"))
	}
	return items, n - len(results)
}

// odsItem is an Explore API v2.1 catalog/datasets result written from the API's
// documentation (no real one is in the corpus).
const odsItem = `{"visibility": "domain", "dataset_id": "gold-prices", "dataset_uid": "da_abc123", "has_records": true,
 "features": ["analyze"], "attachments": [], "alternative_exports": [], "data_visible": true,
 "fields": [{"name": "date", "label": "Date", "type": "date", "annotations": {}}],
 "metas": {"default": {"title": "Gold Prices", "description": "Monthly gold prices", "theme": ["Economy"],
   "keyword": ["gold", "prices"], "license": "Open Database License (ODbL)", "license_url": "https://opendatacommons.org/licenses/odbl/",
   "language": "en", "modified": "2023-06-01T12:00:00+00:00", "publisher": "World Gold Council", "records_count": 838},
  "dcat": {"created": "2019-01-10", "contact_name": "Data Team", "contact_email": "data@example.org"}}}`

// odsItems is n copies of odsItem with their own ids and uids (valid), but one in ten (the
// fifth of each ten) has no contact (invalid).
func odsItems(t *testing.T, n int) (items []json.RawMessage, wantValid int) {
	for i := 0; i < n; i++ {
		it := withMember(t, json.RawMessage(odsItem), fmt.Sprintf("dataset-%04d", i), "dataset_id")
		it = withMember(t, it, fmt.Sprintf("da_%06d", i), "dataset_uid")
		if i%10 == 4 {
			it = withMember(t, it, "", "metas", "dcat", "contact_email")
			it = withMember(t, it, "", "metas", "dcat", "contact_name")
		} else {
			wantValid++
		}
		items = append(items, it)
	}
	return items, wantValid
}

// TestHarvestPortalsSocrataArcGISOpenDataSoft runs each platform's listing through the whole
// pipeline (real Postgres and NATS) against its emulated API: a first harvest adds every item
// that has the DCAT-US fields (the others are validation errors naming the field), a second
// is all unchanged, a removed item is deleted, 429 with Retry-After is ridden out, and a
// listing that ends short of its total (a page failing after retries, a total changing
// mid-listing) fails the job clearly and deletes nothing.
func TestHarvestPortalsSocrataArcGISOpenDataSoft(t *testing.T) {
	t.Parallel()
	for _, tc := range []portalCase{
		{harvest.SourceSocrata, socrataItems, "", 250, "offset=100"},
		{harvest.SourceArcGIS, arcgisItems, "/sharing/rest", 246, "start=101"}, // the portal search, not a Hub site's
		{harvest.SourceOpenDataSoft, odsItems, "", 250, "offset=100"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			r := newPortalRun(t, tc)
			r.addThenUnchanged()
			r.ridesOut429()
			r.failsKeeping()
			r.deletesRemoved()
		})
	}
}

// portalCase is one platform of TestHarvestPortalsSocrataArcGISOpenDataSoft.
type portalCase struct {
	kind  harvest.SourceType
	items func(t *testing.T, n int) ([]json.RawMessage, int)
	path  string // appended to the portal's URL for the source's URL
	n     int    // items served: three pages of 100
	page2 string // the second page's offset in its URL
}

// portalRun is the harvests of one portalCase, in order, on one source.
type portalRun struct {
	t      *testing.T
	tc     portalCase
	h      *pipelinetest.Harness
	portal *pagedPortal
	items  []json.RawMessage
	valid  int // items valid as non-federal DCAT-US
}

func newPortalRun(t *testing.T, tc portalCase) *portalRun {
	r := &portalRun{t: t, tc: tc, h: pipelinetest.New(t)}
	r.items, r.valid = tc.items(t, tc.n)
	r.portal = newPagedPortal(t, string(tc.kind), r.items)
	r.h.Config.Fetch.Attempts = 2
	return r
}

func (r *portalRun) run() pipelinetest.Report {
	return r.h.Harvest(r.t, portal(r.tc.kind, r.portal.srv.URL+r.tc.path))
}

func (r *portalRun) live(sourceID string) int {
	n, err := r.h.Store.DatasetCount(context.Background(), sourceID)
	require.NoError(r.t, err)
	return n
}

// addThenUnchanged: the first harvest adds the valid items, the others are error rows for
// their missing contact; the second is all unchanged.
func (r *portalRun) addThenUnchanged() {
	t, n, valid := r.t, r.tc.n, r.valid
	rep := r.run()
	require.Equal(t, "complete", rep.Status, "%v", rep.JobErrors)
	require.Equal(t, [6]int{n, valid, 0, 0, 0, n - valid},
		[6]int{rep.Total, rep.Added, rep.Updated, rep.Deleted, rep.Unchanged, rep.Errored})
	require.Equal(t, valid, r.live(rep.SourceID))
	errs := r.h.ErrorMessages(t, rep.JobID, harvest.SeverityError) // not the warnings (a license name kept as rights…)
	require.NotEmpty(t, errs)
	for _, e := range errs {
		require.Contains(t, e, "contactPoint", "the invalid items lack a contact: %s", e)
	}

	rep = r.run()
	require.Equal(t, "complete", rep.Status, "%v", rep.JobErrors)
	require.Equal(t, [3]int{0, n - valid, valid}, [3]int{rep.Added, rep.Errored, rep.Unchanged}, "second run: all unchanged")
}

// ridesOut429: 429 with Retry-After on the second page, once, is ridden out.
func (r *portalRun) ridesOut429() {
	r.portal.setFault(func(offset, try int) (int, string) {
		if offset == 100 && try == 1 {
			return http.StatusTooManyRequests, "1"
		}
		return 0, ""
	})
	rep := r.run()
	require.Equal(r.t, "complete", rep.Status, "%v", rep.JobErrors)
	require.Equal(r.t, r.valid, rep.Unchanged)
	r.portal.mu.Lock()
	defer r.portal.mu.Unlock()
	require.Equal(r.t, 2, r.portal.tries[100], "the page was asked again after the 429")
}

// failsKeeping: the second page failing after the retries fails the job naming the page and
// the status; a total changing mid-listing (an item added while it ran) fails it too; neither
// deletes anything.
func (r *portalRun) failsKeeping() {
	t := r.t
	r.portal.setFault(func(offset, _ int) (int, string) {
		if offset == 100 {
			return http.StatusInternalServerError, ""
		}
		return 0, ""
	})
	rep := r.run()
	require.Equal(t, "error", rep.Status)
	require.Len(t, rep.JobErrors, 1)
	for _, want := range []string{"HTTP 500", r.portal.srv.URL, r.tc.page2} {
		require.Contains(t, rep.JobErrors[0], want)
	}
	require.Zero(t, rep.Deleted)
	require.Equal(t, r.valid, r.live(rep.SourceID), "nothing deleted")

	r.portal.setItems(r.items)
	r.portal.mu.Lock()
	r.portal.total = func(offset int) int {
		if offset >= 200 {
			return r.tc.n + 1
		}
		return r.tc.n
	}
	r.portal.mu.Unlock()
	rep = r.run()
	require.Equal(t, "error", rep.Status)
	require.Contains(t, rep.JobErrors[0], fmt.Sprintf("total changed mid-listing, from %d to %d", r.tc.n, r.tc.n+1))
	require.Equal(t, r.valid, r.live(rep.SourceID), "nothing deleted")
}

// deletesRemoved: an item removed from the portal (the last one: valid on every platform) is
// deleted.
func (r *portalRun) deletesRemoved() {
	r.portal.setItems(r.items[:r.tc.n-1])
	rep := r.run()
	require.Equal(r.t, "complete", rep.Status, "%v", rep.JobErrors)
	require.Equal(r.t, [3]int{1, r.valid - 1, 0}, [3]int{rep.Deleted, rep.Unchanged, rep.Added})
	require.Equal(r.t, r.valid-1, r.live(rep.SourceID))
}
