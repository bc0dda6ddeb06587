package web

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// backends runs f on SQLite and on Postgres (dbtest: skipped without a database unless
// HARVESTER_TEST_REQUIRE_POSTGRES is set, which fails instead).
func backends(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) { f(t, sqliteStore(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, dbtest.Store(t)) })
}

// fixture is one organization with one source, a finished harvest job that created record
// "a" (and a live dataset) and errored record "b", and a second job that updated "a"'s title.
type fixture struct {
	org              *store.Organization
	src              *store.Source
	job1, job2       *store.HarvestJob
	created, updated *store.HarvestRecord
}

func seed(t *testing.T, st store.Store) *fixture {
	t.Helper()
	ctx := t.Context()
	f := &fixture{}
	var err error
	f.org, err = st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Agency " + uuid.NewString()[:6],
		Slug: "agency-" + uuid.NewString()[:8]})
	require.NoError(t, err)
	f.src, err = st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: f.org.ID, Name: "Agency catalog",
		URL: "https://example.gov/" + uuid.NewString() + "/data.json", SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	record := func(job *store.HarvestJob, ident string, action harvest.Action, body string) *store.HarvestRecord {
		rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: f.src.ID,
			Identifier: ident, Action: action, SourceHash: "h-" + body, SourceRaw: body, SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		return rec
	}
	settle := func(job *store.HarvestJob, rec *store.HarvestRecord, o harvest.Outcome, st2 harvest.RecordStatus, errs []harvest.RecordError) {
		_, _, err := st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: rec.Identifier,
			Identifier: rec.Identifier, RecordID: rec.ID, Outcome: o, Status: st2, Errors: errs})
		require.NoError(t, err)
	}
	finish := func(job *store.HarvestJob, n int) *store.HarvestJob { return finishJob(t, st, job.ID, n) }
	f.job1, err = st.JobInsert(ctx, &store.JobInsertParams{SourceID: f.src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	f.created = record(f.job1, "a", harvest.ActionCreate, `{"identifier":"a","title":"Old title","keyword":["x"]}`)
	bad := record(f.job1, "b", harvest.ActionCreate, `{"identifier":"b"}`)
	settle(f.job1, f.created, harvest.OutcomeAdded, harvest.RecordSuccess, nil)
	settle(f.job1, bad, harvest.OutcomeErrored, harvest.RecordErrorValidation, []harvest.RecordError{
		{Type: "ValidationError", Message: "$.title: missing property", Severity: harvest.SeverityError}})
	_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: f.src.ID, Identifier: "a",
		Slug: "a-" + uuid.NewString()[:8], DCAT: json.RawMessage(`{"identifier":"a","title":"Old title"}`), RecordID: f.created.ID})
	require.NoError(t, err)
	f.job1 = finish(f.job1, 2)
	f.job2, err = st.JobInsert(ctx, &store.JobInsertParams{SourceID: f.src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	f.updated = record(f.job2, "a", harvest.ActionUpdate, `{"identifier":"a","title":"New title","keyword":["x"]}`)
	settle(f.job2, f.updated, harvest.OutcomeUpdated, harvest.RecordSuccess, nil)
	f.job2 = finish(f.job2, 1)
	return f
}

// liveSlug is the slug of the dataset of (source, identifier).
func liveSlug(t *testing.T, st store.Store, sourceID, identifier string) string {
	t.Helper()
	ds, err := st.DatasetGet(t.Context(), &store.DatasetGetParams{SourceID: sourceID, Identifier: identifier})
	require.NoError(t, err)
	return ds.Slug
}

// TestPagesRender: every page answers 200 with its heading, signed out (reads are public).
func TestPagesRender(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st)
		b := newSite(t, st).browser(t)
		for path, heading := range map[string]string{
			"/harvest_sources": "Harvest sources",
			"/harvest_sources?organization_id=" + f.org.ID:              "Harvest sources",
			"/harvest_sources?health=failing&sort=last_run&q=agency":    "Harvest sources",
			"/harvest_sources/new":                                      "Add a harvest source",
			"/harvest_sources/new?source_type=document":                 "Add a harvest source",
			"/harvest_sources/new?source_type=rdf":                      "Add a harvest source",
			"/harvest_sources/" + f.src.ID:                              "Agency catalog",
			"/harvest_sources/" + f.src.ID + "?page=2":                  "Agency catalog",
			"/harvest_sources/" + f.src.ID + "/edit":                    "Edit Agency catalog",
			"/harvest_sources/" + f.src.ID + "/jobs/new?job_type=clear": "Clear: Agency catalog",
			"/harvest_sources/" + f.src.ID + "/delete":                  "Delete Agency catalog",
			"/organizations":                                               "Organizations",
			"/organizations/new":                                           "Add an organization",
			"/organizations/" + f.org.ID:                                   f.org.Name,
			"/organizations/" + f.org.ID + "/edit":                         "Edit " + f.org.Name,
			"/organizations/" + f.org.ID + "/delete":                       "Delete " + f.org.Name,
			"/harvest_jobs/" + f.job1.ID:                                   jobPageTitle(f.src, f.job1),
			"/harvest_jobs/" + f.job1.ID + "/cancel":                       "Cancel: " + jobPageTitle(f.src, f.job1),
			"/harvest_jobs/" + f.job1.ID + "/replay":                       "Replay: " + jobPageTitle(f.src, f.job1),
			"/harvest_jobs/" + f.job1.ID + "/records":                      "Records of " + jobPageTitle(f.src, f.job1),
			"/harvest_jobs/" + f.job1.ID + "/record_errors?severity=error": "Record errors of " + jobPageTitle(f.src, f.job1),
			"/harvest_records/" + f.updated.ID:                             recordTitle(f.src, f.updated),
			"/harvest_records/" + f.created.ID:                             recordTitle(f.src, f.created),
			"/dataset/" + liveSlug(t, st, f.src.ID, "a"):                   "Old title",
			"/search":    "Search datasets",
			"/validate":  "Validate a catalog",
			"/dashboard": "Dashboard",
			"/quality":   "Metadata quality of the catalog",
			"/sign-in":   "Sign in",
		} {
			code, body := b.get(path)
			require.Equal(t, http.StatusOK, code, "%s: %s", path, body)
			require.Contains(t, body, `<h1 id="page-title">`+htmlEscape(heading)+`</h1>`, path)
		}
		for _, path := range []string{"/harvest_sources/" + uuid.NewString(), "/harvest_jobs/nope", "/no/such/page",
			"/harvest_records/" + uuid.NewString(), "/organizations/" + uuid.NewString()} {
			code, body := b.get(path)
			require.Equal(t, http.StatusNotFound, code, path)
			require.Contains(t, body, `id="error-message"`)
		}
		_, body := b.get("/harvest_jobs/" + f.job1.ID)
		require.Contains(t, body, "ValidationError")
		require.Contains(t, body, `class="group-count">1<`)
		require.Contains(t, body, `href="/harvest_jobs/`+f.job1.ID+`/record_errors.csv"`)
		code, csv := b.get("/harvest_jobs/" + f.job1.ID + "/record_errors.csv")
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, csv, "harvest_job_id,harvest_record_id,identifier,type,severity,message")
		require.Contains(t, csv, "ValidationError")
		_, body = b.get("/harvest_sources/" + f.src.ID + "/jobs/new?job_type=clear")
		require.Contains(t, body, "removes all 1 datasets")
		_, body = b.get("/organizations/" + f.org.ID)
		require.Contains(t, body, `<dd id="organization-datasets">1</dd>`)
		_, body = b.get("/harvest_sources?organization_id=" + f.org.ID)
		require.Contains(t, body, `<td class="num dataset-count">1</td>`)
	})
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// TestRecordDiff: the page of an updated record names the field that changed.
func TestRecordDiff(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st)
		b := newSite(t, st).browser(t)
		_, body := b.get("/harvest_records/" + f.updated.ID)
		require.Contains(t, body, `id="record-diff"`)
		require.Contains(t, body, `<tr class="diff-changed" data-path="title">`)
		require.Contains(t, body, "&#34;Old title&#34;")
		require.NotContains(t, body, `data-path="keyword`, "unchanged fields are not listed")
		require.Contains(t, body, `id="diff-previous"`)
	})
}

// TestWriteWithoutSession: a post without a sign-in goes to /sign-in and changes nothing.
func TestWriteWithoutSession(t *testing.T) {
	st := sqliteStore(t)
	f := seed(t, st)
	s := newSite(t, st)
	b := s.browser(t)
	token := b.csrf("/organizations/new") // a valid pre-session token: the session is what is missing
	for _, path := range []string{"/organizations", "/organizations/" + f.org.ID + "/delete", "/harvest_sources",
		"/harvest_sources/" + f.src.ID + "/jobs", "/harvest_sources/" + f.src.ID + "/delete", "/validate",
		"/harvest_jobs/" + f.job1.ID + "/cancel"} {
		res, _ := b.post(path, url.Values{"name": {"X"}, "slug": {"x"}, "job_type": {"clear"}, "csrf_token": {token}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode, path)
		require.True(t, strings.HasPrefix(res.Header.Get("Location"), "/sign-in?next="), path)
	}
	_, n, err := st.OrganizationList(t.Context(), &store.PageParams{})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	_, n, err = st.JobList(t.Context(), &store.JobListParams{SourceID: f.src.ID})
	require.NoError(t, err)
	require.Equal(t, 2, n)

	// a forged cookie is no session
	b.c.Jar.SetCookies(mustURL(t, s.url), []*http.Cookie{{Name: sessionCookie, Value: "99999999999.forged"}})
	res, _ := b.post("/organizations", url.Values{"name": {"X"}, "slug": {"x"}, "csrf_token": {token}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	// and a wrong key signs nobody in
	res, body := b.post("/sign-in", url.Values{"api_key": {"wrong"}, "csrf_token": {b.csrf("/sign-in")}})
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	require.Contains(t, body, `id="api_key-error"`)
}

func mustURL(t *testing.T, raw string) *url.URL {
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

// TestPostWithoutCSRF: a signed-in post without the token, or with another's, is a 403.
func TestPostWithoutCSRF(t *testing.T) {
	st := sqliteStore(t)
	f := seed(t, st)
	s := newSite(t, st)
	b := s.browser(t)
	b.signIn()
	for _, token := range []string{"", "forged-token-forged-token"} {
		form := url.Values{"name": {"X"}, "slug": {"x"}, "job_type": {"clear"}}
		if token != "" {
			form.Set("csrf_token", token)
		}
		for _, path := range []string{"/organizations", "/harvest_sources/" + f.src.ID + "/jobs", "/sign-out",
			"/organizations/" + f.org.ID + "/delete"} {
			res, _ := b.post(path, form)
			require.Equal(t, http.StatusForbidden, res.StatusCode, "%s token %q", path, token)
		}
	}
	// the sign-in form itself needs the pre-session token
	other := s.browser(t)
	res, _ := other.post("/sign-in", url.Values{"api_key": {testKey}})
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	_, n, err := st.OrganizationList(t.Context(), &store.PageParams{})
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

// TestFormsRefuseBadInput: each form answers bad input with a message at the field (the
// API's validation), never a 500.
func TestFormsRefuseBadInput(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st)
		b := newSite(t, st).browser(t)
		b.signIn()
		post := func(path string, form url.Values, wantStatus int, wantIDs ...string) string {
			t.Helper()
			form.Set("csrf_token", b.csrf("/organizations/new"))
			res, body := b.post(path, form)
			require.Equal(t, wantStatus, res.StatusCode, "%s %v: %s", path, form, body)
			for _, id := range wantIDs {
				require.Contains(t, body, `id="`+id+`"`, "%s %v", path, form)
			}
			return body
		}
		post("/organizations", url.Values{"name": {" "}, "slug": {"Bad Slug"}}, 422, "name-error", "slug-error")
		post("/organizations", url.Values{"name": {"Dup"}, "slug": {f.org.Slug}}, 422, "slug-error")
		post("/organizations/"+f.org.ID+"/edit", url.Values{"name": {""}, "slug": {"ok"}}, 422, "name-error")
		body := post("/organizations/"+f.org.ID+"/delete", url.Values{}, http.StatusConflict, "delete-error")
		require.Contains(t, body, "still has harvest sources")

		src := url.Values{"name": {"S"}, "url": {"not a url"}, "source_type": {"document"}, "schema_type": {""},
			"frequency": {"manual"}, "notification_frequency": {"on_error"}, "notification_emails": {"not-an-email"}}
		post("/harvest_sources", src, 422, "url-error", "schema_type-error", "notification_emails-error")
		waf := url.Values{"name": {"W"}, "url": {"https://example.gov/waf/"}, "source_type": {"waf"},
			"schema_type": {"dcatus1.1: federal"}, "frequency": {"manual"}, "notification_frequency": {"on_error"},
			"waf_time_zone": {"Mars/Olympus"}, "rdf.shacl_profile": {"dcat-ap-3.0.0"}}
		post("/harvest_sources", waf, 422, "options-error")
		delete(waf, "rdf.shacl_profile")
		post("/harvest_sources", waf, 422, "schema_type-error", "waf_time_zone-error")
		coll := url.Values{"name": {"C"}, "url": {"https://example.gov/c/"}, "source_type": {"waf-collection"},
			"schema_type": {"iso19115_2"}, "frequency": {"hourly"}, "notification_frequency": {"on_error"},
			"auth_header_name": {"Bad Header"}, "auth_header_value": {"x"}}
		post("/harvest_sources", coll, 422, "collection_parent_url-error", "frequency-error", "auth_header_name-error")
		dup := url.Values{"name": {"D"}, "url": {f.src.URL}, "source_type": {"document"},
			"schema_type": {"dcatus1.1: federal"}, "frequency": {"manual"}, "notification_frequency": {"on_error"}}
		post("/harvest_sources", dup, 422, "url-error")
		post("/harvest_sources/"+f.src.ID+"/edit", url.Values{"name": {""}, "url": {f.src.URL}, "source_type": {"rdf"},
			"schema_type": {"dcatus1.1: federal"}, "frequency": {"manual"}, "notification_frequency": {"on_error"}},
			422, "name-error", "schema_type-error")
		post("/harvest_sources/"+f.src.ID+"/jobs", url.Values{"job_type": {"explode"}}, 422, "job-error")
		body = post("/harvest_sources/"+f.src.ID+"/delete", url.Values{}, http.StatusConflict, "delete-error")
		require.Contains(t, body, "1 live datasets")
		post("/validate", url.Values{"schema_type": {"dcatus1.1: federal"}, "method": {"paste"}, "json": {""}}, 422, "json-error")
		post("/validate", url.Values{"schema_type": {"iso19115_1"}, "method": {"paste"}, "json": {"{}"}}, 422, "schema_type-error")
		post("/validate", url.Values{"schema_type": {"dcatus1.1: federal"}, "method": {"url"}, "url": {""}}, 422, "url-error")
		post("/harvest_jobs/"+f.job1.ID+"/cancel", url.Values{}, http.StatusConflict, "action-error")

		// and good input goes through: a source of every type the form offers
		for i, spec := range harvest.SourceSpecs {
			ty := spec.Type
			form := url.Values{"name": {"T " + string(ty)}, "url": {"https://example.gov/" + uuid.NewString() + "/"},
				"source_type": {string(ty)}, "frequency": {"manual"}, "notification_frequency": {"on_error"},
				"notification_emails": {"a@example.gov\nb@example.gov"}, "accept": {"application/json"},
				"auth_header_name": {"Authorization"}, "auth_header_value": {"Bearer s3cret"},
				"organization_id": {f.org.ID}}
			switch ty {
			case harvest.SourceWAF:
				form.Set("schema_type", "iso19115_1")
			case harvest.SourceWAFCollection:
				form.Set("schema_type", "iso19115_2")
				form.Set("collection_parent_url", "https://example.gov/parent.xml")
			case harvest.SourceRDF:
				form.Set("schema_type", "dcat-ap")
				form.Set("rdf.shacl_profile", "dcat-ap-no-2.0")
			case harvest.SourceCKAN:
				form.Set("ckan.rows", "50")
			case harvest.SourceDocument:
				form.Set("schema_type", "dcatus1.1: federal")
			}
			form.Set("csrf_token", b.csrf("/harvest_sources/new"))
			res, body := b.post("/harvest_sources", form)
			require.Equal(t, http.StatusSeeOther, res.StatusCode, "%d %s: %s", i, ty, body)
			code, page := b.get(res.Header.Get("Location"))
			require.Equal(t, http.StatusOK, code)
			require.Contains(t, page, "Authorization: ********")
			require.NotContains(t, page, "s3cret", "the auth header value is never shown")
		}
	})
}

// finishJob sets the job's expected record count to n and finishes it (every record settled).
func finishJob(t *testing.T, st store.Store, jobID string, n int) *store.HarvestJob {
	t.Helper()
	_, err := st.JobSetExpected(t.Context(), &store.JobSetExpectedParams{JobID: jobID, Expected: n})
	require.NoError(t, err)
	j, ok, err := st.JobFinish(t.Context(), jobID)
	require.NoError(t, err)
	require.True(t, ok, "job %s finished", jobID)
	return j
}

// TestProgressNeverAbove100: a job that settled more than it expected shows 100%, the API's
// percent_settled, on the job page and in its progress JSON.
func TestProgressNeverAbove100(t *testing.T) {
	st := sqliteStore(t)
	f := seed(t, st)
	ctx := t.Context()
	_, err := st.JobFail(ctx, &store.JobFailParams{JobID: f.job2.ID, Type: "x", Message: "x"}) // no-op: finished
	_ = err
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: f.src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	_, err = st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 2})
	require.NoError(t, err)
	s := newSite(t, st)
	b := s.browser(t)
	check := func(want string) {
		t.Helper()
		_, body := b.get("/harvest_jobs/" + job.ID + "/progress")
		var p struct {
			PercentSettled *float64 `json:"percent_settled"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &p))
		_, apiBody := b.get("/api/v1/harvest_jobs/" + job.ID)
		var a struct {
			PercentSettled *float64 `json:"percent_settled"`
		}
		require.NoError(t, json.Unmarshal([]byte(apiBody), &a))
		require.Equal(t, a.PercentSettled, p.PercentSettled, "the same figure as the API")
		require.LessOrEqual(t, *p.PercentSettled, 100.0)
		_, page := b.get("/harvest_jobs/" + job.ID)
		require.Contains(t, page, `<span id="job-progress-text" aria-live="polite">`+want+`</span>`)
		require.Contains(t, page, `max="100" value="`+strings.TrimSuffix(want, "%")+`"`)
	}
	check("0.0%")
	for _, k := range []string{"a", "b", "c"} { // one more than expected
		_, _, err := st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: k, Identifier: k,
			Outcome: harvest.OutcomeUnchanged})
		require.NoError(t, err)
		if k == "a" {
			check("50.0%")
		}
	}
	check("100.0%")
}

// TestProtectReads: with Config.ProtectReads every page but /sign-in needs a session, as the
// API's reads then need the key; the job's CSV still downloads for a signed-in operator.
func TestProtectReads(t *testing.T) {
	st := sqliteStore(t)
	f := seed(t, st)
	log := slog.New(slog.DiscardHandler)
	h, err := api.New(api.Config{APIKey: testKey, ProtectReads: true}, api.Deps{Store: st, Logger: log})
	require.NoError(t, err)
	w, err := New(Config{APIKey: testKey, ProtectReads: true}, Deps{Store: st, API: h, Logger: log})
	require.NoError(t, err)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	b := (&site{store: st, url: srv.URL}).browser(t)
	for _, p := range []string{"/harvest_sources", "/harvest_jobs/" + f.job1.ID, "/harvest_jobs/" + f.job1.ID + "/record_errors.csv"} {
		res, err := b.c.Get(srv.URL + p)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusSeeOther, res.StatusCode, p)
	}
	code, _ := b.get("/sign-in")
	require.Equal(t, http.StatusOK, code)
	b.signIn()
	code, csv := b.get("/harvest_jobs/" + f.job1.ID + "/record_errors.csv")
	require.Equal(t, http.StatusOK, code, csv)
	require.Contains(t, csv, "ValidationError")
	_, err = New(Config{ProtectReads: true}, Deps{Store: st, API: h})
	require.Error(t, err, "ProtectReads without a key")
}

// TestDashboardLag: the metrics page lists the consumers' backlog and the failed records per
// stage from Deps.Lag, and still answers when NATS cannot be read.
func TestDashboardLag(t *testing.T) {
	st := sqliteStore(t)
	seed(t, st)
	log := slog.New(slog.DiscardHandler)
	h, err := api.New(api.Config{APIKey: testKey}, api.Deps{Store: st, Logger: log})
	require.NoError(t, err)
	var lagErr error
	w, err := New(Config{APIKey: testKey}, Deps{Store: st, API: h, Logger: log, Lag: func(context.Context) (*router.Lag, error) {
		if lagErr != nil {
			return nil, lagErr
		}
		return &router.Lag{Consumers: []router.ConsumerLag{{Stream: "HARVEST_WORK", Consumer: "validate", Pending: 42, AckPending: 3}},
			Failed: map[string]uint64{"sync": 7}}, nil
	}})
	require.NoError(t, err)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	b := (&site{store: st, url: srv.URL}).browser(t)
	code, body := b.get("/dashboard")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "<td>validate</td><td>42</td><td>3</td>")
	require.Contains(t, body, "2 jobs since")
	require.Contains(t, body, `<td class="status-complete">complete</td><td>harvest</td><td>2</td>`)
	require.Contains(t, body, "<td>sync</td><td>7</td>")
	lagErr = errors.New("nats down")
	code, body = b.get("/dashboard")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `id="lag-error"`)
}

// TestSessionExpires: a session stops being one after Config.SessionTTL.
func TestSessionExpires(t *testing.T) {
	st := sqliteStore(t)
	log := slog.New(slog.DiscardHandler)
	h, err := api.New(api.Config{APIKey: testKey}, api.Deps{Store: st, Logger: log})
	require.NoError(t, err)
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	w, err := New(Config{APIKey: testKey, SessionTTL: time.Hour}, Deps{Store: st, API: h, Logger: log, Now: clock})
	require.NoError(t, err)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	b := (&site{store: st, url: srv.URL}).browser(t)
	b.signIn()
	_, body := b.get("/organizations")
	require.Contains(t, body, `id="sign-out"`)
	mu.Lock()
	now = now.Add(time.Hour + time.Second)
	mu.Unlock()
	_, body = b.get("/organizations")
	require.Contains(t, body, `id="sign-in-link"`, "signed out once the session expired")
	res, _ := b.post("/organizations", url.Values{"name": {"X"}, "slug": {"x"}, "csrf_token": {b.csrf("/organizations/new")}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Contains(t, res.Header.Get("Location"), "/sign-in")
}
