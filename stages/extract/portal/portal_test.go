package portal

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/extract/portal/portaltest"
	"github.com/harvester-dev/harvester/store"
)

// testPortalFetch retries fast: a page that keeps failing gives up within milliseconds.
func testPortalFetch() fetch.Config {
	return fetch.Config{AllowPrivate: true, Attempts: 3, Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
}

// runPortal runs EXTRACT on one job of a portal source at base, whose live datasets are live,
// on SQLite and gochannel, as runExtractOn does for a document.
func runPortal(t *testing.T, st store.Store, typ harvest.SourceType, base string, options map[string]string,
	live []string, fc fetch.Config, opts ...extract.Option) *extractRun {
	t.Helper()
	src, err := st.SourceEnsure(context.Background(), &store.SourceEnsureParams{Name: "portal", URL: base, SourceType: typ,
		SchemaType: harvest.SchemaDCATUS11NonFederal})
	require.NoError(t, err)
	// Nothing settles the records sent to COMPARE here: a failing listing's wait for them
	// (extract.Run.Fail) gives up at once.
	opts = append([]extract.Option{extract.WithConfig(extract.Config{StallTimeout: time.Millisecond})}, opts...)
	return handleJob(t, st, src.ID, live, harvest.Job{SourceType: typ, SchemaType: harvest.SchemaDCATUS11NonFederal,
		URL: base, Options: options}, fc, opts...)
}

// requireFailed checks that the job failed with one job error containing each of want, and
// that no Listing was sent (COMPARE deletes nothing).
func requireFailed(t *testing.T, r *extractRun, want ...string) string {
	t.Helper()
	require.NoError(t, r.err, "a portal that cannot be listed fails the job; the stage does not retry")
	require.Empty(t, r.msgs[harvest.SubjectListing], "no Listing after an incomplete listing: nothing is deleted")
	errs := r.jobErrors(t)
	require.Len(t, errs, 1)
	for _, w := range want {
		require.Contains(t, errs[0].Message, w)
	}
	job, err := r.st.JobGet(context.Background(), r.job.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.JobError, job.Status)
	return errs[0].Message
}

func corpusIDs(t *testing.T, base string, pkgs []json.RawMessage) []string {
	var ids []string
	for _, p := range pkgs {
		ids = append(ids, CKANIdentifier(base, portaltest.PackageID(t, p)))
	}
	sort.Strings(ids)
	return ids
}

func TestCKANListsEveryPage(t *testing.T) {
	t.Parallel()
	pkgs := portaltest.CorpusPackages(t)
	require.Len(t, pkgs, 13)
	ckan := portaltest.NewCKAN(t, pkgs)
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL()+"/", map[string]string{"rows": "5",
		"fq": "organization:epa-gov"}, []string{ckan.URL() + "/dataset/gone"}, testPortalFetch())
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t))
	require.Empty(t, r.settled(t), "no record errors")
	recs := r.records(t)
	require.Equal(t, corpusIDs(t, ckan.URL(), pkgs), identifiers(recs), "every package, in listing (id) order")
	for i, rec := range recs {
		require.Equal(t, harvest.SourceCKAN, rec.SourceType)
		require.Equal(t, i, rec.Position)
		require.Equal(t, harvest.SchemaDCATUS11NonFederal, rec.SchemaType)
		require.True(t, json.Valid(rec.Body))
	}
	require.Equal(t, 13, r.listed(t))
	require.Equal(t, []string{ckan.URL() + "/dataset/gone"}, r.unseenAtListing, "what the portal dropped is deleted")
	reqs := ckan.Requests()
	require.Len(t, reqs, 3, "13 packages, 5 a page")
	for _, req := range reqs {
		u, err := url.Parse(req)
		require.NoError(t, err)
		require.Equal(t, "/api/3/action/package_search", u.Path)
		require.Equal(t, "id asc", u.Query().Get("sort"))
		require.Equal(t, "organization:epa-gov", u.Query().Get("fq"))
		require.Equal(t, "5", u.Query().Get("rows"))
	}
}

func TestCKANRidesOut503And429(t *testing.T) {
	t.Parallel()
	pkgs := portaltest.CorpusPackages(t)
	ckan := portaltest.NewCKAN(t, pkgs)
	ckan.FaultFor = func(start, try int) portaltest.Fault {
		switch {
		case start == 5 && try == 1:
			return portaltest.Fault{Status: 503, Body: "busy"}
		case start == 10 && try == 1:
			return portaltest.Fault{Status: 429, RetryAfter: "1"}
		}
		return portaltest.Fault{}
	}
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), map[string]string{"rows": "5"}, nil, testPortalFetch())
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t))
	require.Equal(t, corpusIDs(t, ckan.URL(), pkgs), identifiers(r.records(t)))
	require.Equal(t, 13, r.listed(t))
}

func TestCKANPageFailingAfterRetriesFailsTheJob(t *testing.T) {
	t.Parallel()
	template := portaltest.CorpusPackages(t)[0]
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, template, 300))
	ckan.FaultFor = func(start, _ int) portaltest.Fault {
		if start == 60 { // page 7 of 30
			return portaltest.Fault{Status: 500, Body: "<html><title>Internal Server Error</title></html>"}
		}
		return portaltest.Fault{}
	}
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), map[string]string{"rows": "10"},
		[]string{ckan.URL() + "/dataset/kept"}, testPortalFetch())
	msg := requireFailed(t, r, "HTTP 500", "start=60", ckan.URL()+"/api/3/action/package_search", "gave up after 3 attempts")
	t.Log(msg)
}

func TestCKANTotalChangingMidListingFailsTheJob(t *testing.T) {
	t.Parallel()
	pkgs := portaltest.CorpusPackages(t)
	ckan := portaltest.NewCKAN(t, pkgs)
	ckan.CountFor = func(start int) int {
		if start >= 10 {
			return 14 // a package was added while the listing ran
		}
		return 13
	}
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), map[string]string{"rows": "5"}, nil, testPortalFetch())
	requireFailed(t, r, "total changed mid-listing, from 13 to 14", "start=10")
}

func TestCKANSamePageServedTwiceFailsTheJob(t *testing.T) {
	t.Parallel()
	pkgs := portaltest.CorpusPackages(t)
	ckan := portaltest.NewCKAN(t, pkgs)
	ckan.StartFor = func(start int) int {
		if start == 5 {
			return 0 // page 2 is page 1 again
		}
		return start
	}
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), map[string]string{"rows": "5"}, nil, testPortalFetch())
	requireFailed(t, r, "page 2 repeats "+ckan.URL()+"/dataset/", "listed already as item #1", "start=5")
	require.Zero(t, errorRows(t, r), "the repeated page is refused whole: none of its items is an error row")
	require.Len(t, r.records(t), 5, "page 1 only")
}

func TestCKANShortPageBeforeTheLastFailsTheJob(t *testing.T) {
	t.Parallel()
	pkgs := portaltest.CorpusPackages(t)
	ckan := portaltest.NewCKAN(t, pkgs)
	ckan.StartFor = func(start int) int {
		if start == 5 {
			return 1000 // an empty page where five packages should be
		}
		return start
	}
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), map[string]string{"rows": "5"}, nil, testPortalFetch())
	requireFailed(t, r, "page 2 of 3 has 0 items, 5 were asked for", "start=5")
}

func TestCKANEmptyPortalAndExactPages(t *testing.T) {
	t.Parallel()
	pkgs := portaltest.CorpusPackages(t)[:10]
	ckan := portaltest.NewCKAN(t, pkgs)
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), map[string]string{"rows": "5"}, nil, testPortalFetch())
	require.NoError(t, r.err)
	require.Equal(t, 10, r.listed(t))
	require.Len(t, ckan.Requests(), 3, "10 packages are 2 full pages, and a third is asked for to check that it is "+
		"empty: the count is not smaller than the listing")

	empty := portaltest.NewCKAN(t, nil)
	r = runPortal(t, openSQLite(t), harvest.SourceCKAN, empty.URL(), nil, nil, testPortalFetch())
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t))
	require.Equal(t, 0, r.listed(t), "count 0 and an empty page: a complete, empty listing")
}

func TestCKANDKAN7ListEnvelope(t *testing.T) {
	t.Parallel()
	pkgs := portaltest.CorpusPackages(t)
	ckan := portaltest.NewCKAN(t, pkgs)
	ckan.Envelope = func(result json.RawMessage) json.RawMessage { return json.RawMessage("[" + string(result) + "]") }
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), nil, nil, testPortalFetch())
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t))
	require.Equal(t, 13, r.listed(t))
}

func TestCKANBadAnswersFailTheJob(t *testing.T) {
	t.Parallel()
	ckan := portaltest.NewCKAN(t, portaltest.CorpusPackages(t))
	ckan.FaultFor = func(int, int) portaltest.Fault {
		return portaltest.Fault{Status: 200, Body: `{"help": "x", "success": false, "error": {"message": "Access denied"}}`}
	}
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), nil, nil, testPortalFetch())
	requireFailed(t, r, "CKAN answered success false", "Access denied")

	r = runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), map[string]string{"rows": "x"}, nil, testPortalFetch())
	requireFailed(t, r, `rows option "x"`)
}

func TestCKANItemWithoutIDIsAnErrorRow(t *testing.T) {
	t.Parallel()
	ckan := portaltest.NewCKAN(t, []json.RawMessage{json.RawMessage(`{"id": "a"}`), json.RawMessage(`{"id": 42, "title": "n"}`)})
	bad := json.RawMessage(`{"title": "no id"}`)
	ckan.Envelope = func(result json.RawMessage) json.RawMessage {
		var res struct {
			Count   int               `json:"count"`
			Results []json.RawMessage `json:"results"`
		}
		require.NoError(t, json.Unmarshal(result, &res))
		res.Results = append(res.Results, bad)
		res.Count++
		out, _ := json.Marshal(res)
		return out
	}
	r := runPortal(t, openSQLite(t), harvest.SourceCKAN, ckan.URL(), nil, nil, testPortalFetch())
	require.NoError(t, r.err)
	require.Equal(t, []string{ckan.URL() + "/dataset/42", ckan.URL() + "/dataset/a"}, identifiers(r.records(t)),
		"a numeric id is keyed by its digits")
	errs := r.recordErrors(t)
	require.Contains(t, errs["MissingIdentifier"].Errors[0].Message, `package (title "no id") has no id`)
	require.Equal(t, 3, r.listed(t))
}

func TestDKANListsTheMetastore(t *testing.T) {
	t.Parallel()
	items := portaltest.CorpusDKANItems(t)
	require.Len(t, items, 10)
	dkan := portaltest.NewDKAN(t, items)
	r := runPortal(t, openSQLite(t), harvest.SourceDKAN, dkan.Server.URL, nil, []string{dkan.Server.URL + "/dataset/gone"},
		testPortalFetch())
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t))
	recs := r.records(t)
	require.Len(t, recs, 10)
	for _, rec := range recs {
		require.True(t, strings.HasPrefix(rec.Identifier, dkan.Server.URL+"/dataset/"), rec.Identifier)
		require.Equal(t, harvest.SourceDKAN, rec.SourceType)
	}
	require.Equal(t, 10, r.listed(t), "the search API's total 0 is not asked")
	require.Equal(t, []string{dkan.Server.URL + "/dataset/gone"}, r.unseenAtListing)

	dkan.Status = 503
	r = runPortal(t, openSQLite(t), harvest.SourceDKAN, dkan.Server.URL, nil, nil, testPortalFetch())
	requireFailed(t, r, "HTTP 503", "/api/1/metastore/schemas/dataset/items?show-reference-ids")
}

func TestCKANBaseURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://catalog.example.org":                                     "https://catalog.example.org",
		"https://catalog.example.org/":                                    "https://catalog.example.org",
		"https://www.datasud.fr/fr/indexer/service/ckan/":                 "https://www.datasud.fr/fr/indexer/service/ckan",
		"https://catalog.example.org/api/3/action/package_search?rows=10": "https://catalog.example.org",
		"https://catalog.example.org/api":                                 "https://catalog.example.org",
	} {
		require.Equal(t, want, CKANBaseURL(in), in)
	}
}

// TestPortalPagerWindow checks that the pager never holds more than Window pages: pages are
// fetched ahead of the listing at most Window at a time.
func TestPortalPagerWindow(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	inFlight, peak := 0, 0
	p := &extract.Pager{Name: "test", PageSize: 2, Window: 3, Page: func(ctx context.Context, offset int) (*extract.PortalPage, error) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		if offset > 0 {
			time.Sleep(5 * time.Millisecond) // let the other fetches pile up, if the window allowed it
		}
		items := []extract.PortalItem{}
		for i := offset; i < min(offset+2, 40); i++ {
			items = append(items, extract.PortalItem{Identifier: fmt.Sprint("id-", i), Raw: []byte(`{}`)})
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return &extract.PortalPage{URL: fmt.Sprint("page ", offset), Items: items, Total: 40}, nil
	}}
	st := openSQLite(t)
	ctx := context.Background()
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "w", URL: "https://w.example", SourceType: harvest.SourceCKAN,
		SchemaType: harvest.SchemaDCATUS11NonFederal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	var published []string
	pub := publishFunc(func(subject string, msgs ...*harvest.Message) error {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			if subject == harvest.SubjectCompare {
				var rec harvest.Record
				require.NoError(t, harvest.Decode(m, &rec))
				published = append(published, rec.Identifier)
			}
		}
		return nil
	})
	h := newHandler(st, pub, fetch.Config{})
	require.NoError(t, h.ListPager(ctx, &harvest.Job{JobID: job.ID, SourceID: src.ID, JobType: harvest.JobHarvest,
		SourceType: harvest.SourceCKAN}, p))
	require.Len(t, published, 40)
	for i, id := range published {
		require.Equal(t, fmt.Sprint("id-", i), id, "items in listing order")
	}
	require.LessOrEqual(t, peak, 3, "at most Window pages fetched at once")
}

type publishFunc func(string, ...*harvest.Message) error

func (f publishFunc) Publish(subject string, msgs ...*harvest.Message) error {
	return f(subject, msgs...)
}
func (publishFunc) Close() error { return nil }

func TestCKANCrossSourceDuplicateIsAWarning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openSQLite(t)
	// Another harvest source of ours harvests USDA's data.json, which catalog.data.gov harvested too.
	usda, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "USDA data.json", URL: "https://www.usda.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: usda.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	const id = "372bcb63-d926-4d0c-acc2-857246e36d34" // the package's "identifier" extra
	rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: harvest.RecordID(job.ID, id), JobID: job.ID,
		SourceID: usda.ID, Identifier: id, Action: harvest.ActionCreate, SourceRaw: "{}"})
	require.NoError(t, err)
	_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: usda.ID, Identifier: id, Slug: "usda-patents",
		DCAT: []byte("{}"), RecordID: rec.ID})
	require.NoError(t, err)
	_, err = st.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "Test", Message: "done"})
	require.NoError(t, err)

	ckan := portaltest.NewCKAN(t, portaltest.CorpusPackages(t))
	r := runPortal(t, st, harvest.SourceCKAN, ckan.URL(), nil, nil, testPortalFetch())
	require.NoError(t, r.err)
	var warned []harvest.Record
	for _, rec := range r.records(t) {
		if len(rec.Warnings) > 0 {
			warned = append(warned, rec)
		}
	}
	require.Len(t, warned, 1, "only the package harvested from USDA's data.json")
	require.Equal(t, ckan.URL()+"/dataset/97b952cd-262c-4f7e-b0a0-b40c39ce9457", warned[0].Identifier)
	w := warned[0].Warnings[0]
	require.Equal(t, "CrossSourceDuplicate", w.Type)
	require.Equal(t, harvest.SeverityWarning, w.Severity)
	require.Contains(t, w.Message, `harvest source "USDA data.json" (`+usda.ID+`)`)
	require.Contains(t, w.Message, `its harvest source "USDA JSON"`)
	require.Equal(t, 13, r.listed(t), "the package is harvested still")
}

// TestCKANEnvelopeVariants: the answers of CKAN-compatible APIs that are read: an old CKAN's
// docstring help, DKAN 7's list of one, and those refused with a reason.
func TestCKANEnvelopeVariants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ body, err string }{
		{`{"help": "Searches for packages.\\n\\n:param q: the query\\n", "success": true, "result": {"count": 1, "results": [{"id": "a"}]}}`, ""},
		{`{"success": true, "result": [{"count": 1, "results": [{"id": "a"}]}]}`, ""},
		{`{"success": true, "result": [{"count": 1}, {"count": 2}]}`, "result is a list of 2"},
		{`{"success": true, "result": {"results": []}}`, "no result.count"},
		{`{"success": false, "error": {"__type": "Authorization Error"}}`, `success false: {"__type":"Authorization Error"}`},
	} {
		var env ckanEnvelope
		require.NoError(t, json.Unmarshal([]byte(tc.body), &env))
		count, err := env.search("u")
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err)
			continue
		}
		require.NoError(t, err, tc.body)
		require.Equal(t, 1, count)
	}
}
