package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/web/browsertest"
)

// ui is a test's headless Chromium on a running `harvester serve`.
type ui struct {
	t    *testing.T
	ctx  context.Context
	api  *apiClient
	base string
}

// bounded is the browser's context with the failsafe: a step that waits for an element that
// never comes (a broken page) fails the test after browsertest.Failsafe instead of hanging.
func (u *ui) bounded() (context.Context, context.CancelFunc) {
	return context.WithTimeout(u.ctx, browsertest.Failsafe)
}

// do runs chromedp steps; a failure fails the test, naming what.
func (u *ui) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	u.t.Helper()
	ctx, cancel := u.bounded()
	defer cancel()
	require.NoError(u.t, chromedp.Do(ctx, steps...), what)
}

// open loads a page of the site and waits for its title.
func (u *ui) open(path string) {
	u.t.Helper()
	u.do("open "+path, chromedp.Navigate(u.base+path), chromedp.WaitVisible(chromedp.ID("page-title")))
}

// text is the trimmed text of the element with the id, once it is visible. A page that is
// still being replaced (a navigation ending, a live update) can drop the node between the
// query and the read ("No node with given id found"): that read is tried again, within the
// failsafe.
func (u *ui) text(id string) string {
	u.t.Helper()
	ctx, cancel := u.bounded()
	defer cancel()
	for {
		err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID(id)))
		var s string
		if err == nil {
			s, err = chromedp.Run(ctx, chromedp.TextContent(chromedp.ID(id)))
		}
		if err != nil && strings.Contains(err.Error(), "No node with given id") && ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		require.NoError(u.t, err, "text of #%s", id)
		return strings.TrimSpace(s)
	}
}

// type_ types s into the input with the id.
func (u *ui) type_(id, s string) {
	u.t.Helper()
	u.do("type into #"+id, chromedp.WaitVisible(chromedp.ID(id)), chromedp.SendKeys(chromedp.ID(id), s))
}

// submit clicks the button with the id and waits until the browser is on a page whose path
// matches want.
func (u *ui) submit(id string, want *regexp.Regexp) string {
	u.t.Helper()
	u.do("click #"+id, chromedp.Click(chromedp.ID(id)))
	return u.waitPath(want)
}

// waitPath waits until the page's path matches want and its title is there, and returns the
// path.
func (u *ui) waitPath(want *regexp.Regexp) string {
	u.t.Helper()
	browsertest.Until(u.ctx, u.t, "a page at "+want.String(),
		`new RegExp(`+strconv.Quote(want.String())+`).test(location.pathname) && !!document.getElementById("page-title")`)
	loc, err := chromedp.Run(u.ctx, chromedp.Location())
	require.NoError(u.t, err)
	p, err := url.Parse(loc)
	require.NoError(u.t, err)
	return p.Path
}

func (u *ui) shot(name string) { u.t.Helper(); browsertest.Screenshot(u.ctx, u.t, name) }

var (
	orgPath    = regexp.MustCompile(`^/organizations/[0-9a-f-]{36}$`)
	sourcePath = regexp.MustCompile(`^/harvest_sources/[0-9a-f-]{36}$`)
	jobPath    = regexp.MustCompile(`^/harvest_jobs/[0-9a-f-]{36}$`)
	recordPath = regexp.MustCompile(`^/harvest_records/[0-9a-f-]{36}$`)
)

// progressSample is one look at the job page's progress bar.
type progressSample struct {
	Value    float64 `json:"value"`
	Text     string  `json:"text"`
	Status   string  `json:"status"`
	Finished string  `json:"finished"`
}

// watchJob watches the job page's progress bar until the page shows the job finished (the
// page reloads itself then), and returns what the bar showed on the way. Each look fails the
// test if the bar is above 100% or went back.
func (u *ui) watchJob() []progressSample {
	u.t.Helper()
	const look = `(() => { const b = document.getElementById("job-progress-bar"), p = document.getElementById("job-progress");
		return b && p ? {value: b.value, text: document.getElementById("job-progress-text").textContent,
			status: document.getElementById("job-status").textContent, finished: p.dataset.finished} : null })()`
	var seen []progressSample
	deadline := time.Now().Add(browsertest.Failsafe)
	wctx, cancel := context.WithDeadline(u.ctx, deadline)
	defer cancel()
	for {
		s, err := chromedp.Run(wctx, chromedp.Evaluate[*progressSample](look))
		if err == nil && s != nil {
			require.LessOrEqual(u.t, s.Value, 100.0, "the bar never goes above 100%%: %+v", s)
			if n := len(seen); n > 0 {
				require.GreaterOrEqual(u.t, s.Value, seen[n-1].Value, "the bar never goes back: %+v after %+v", s, seen[n-1])
			}
			seen = append(seen, *s)
			if s.Finished == "true" && (s.Status == "complete" || s.Status == "error") {
				// The page's script marks it finished and reloads it a moment later; load
				// the finished page now, so that what follows reads the server's page.
				loc, err := chromedp.Run(u.ctx, chromedp.Location())
				require.NoError(u.t, err)
				p, err := url.Parse(loc)
				require.NoError(u.t, err)
				u.open(p.Path)
				u.t.Logf("the bar of %s showed %s", p.Path, progressValues(seen))
				return seen
			}
		}
		require.True(u.t, time.Now().Before(deadline), "the job page did not show the job finished within %v", browsertest.Failsafe)
		time.Sleep(50 * time.Millisecond)
	}
}

// progressValues lists the bar's values seen, each once, in order.
func progressValues(seen []progressSample) string {
	var out []string
	for i, s := range seen {
		if i == 0 || s.Value != seen[i-1].Value {
			out = append(out, strconv.FormatFloat(s.Value, 'f', 1, 64)+"%")
		}
	}
	return strings.Join(out, " → ")
}

// startJob starts a job of the source from its page's button, confirms it and returns the
// job page's path.
func (u *ui) startJob(sourcePath, jobType string) string {
	u.t.Helper()
	u.open(sourcePath)
	u.do("click "+jobType, chromedp.Click(chromedp.ID("action-"+jobType)), chromedp.WaitVisible(chromedp.ID("job-confirm")))
	return u.submit("job-confirm", jobPath)
}

// checkCounts compares the finished job page's counts with the API's job.
func (u *ui) checkCounts(jobID string) apiJob {
	u.t.Helper()
	var j apiJob
	u.api.call("GET", "/api/v1/harvest_jobs/"+jobID, nil, http.StatusOK, &j)
	want := map[string]int{"total": j.Total, "added": j.Added, "updated": j.Updated, "deleted": j.Deleted,
		"unchanged": j.Unchanged, "errored": j.Errored}
	got := map[string]int{}
	for k := range want {
		n, err := strconv.Atoi(u.text("count-" + k))
		require.NoError(u.t, err, "count-%s", k)
		got[k] = n
	}
	require.Equal(u.t, want, got, "the job page's counts are the API's")
	require.Equal(u.t, j.Status, u.text("job-status"))
	require.NotNil(u.t, j.PercentSettled)
	require.Equal(u.t, 100.0, *j.PercentSettled)
	require.Equal(u.t, "100.0%", u.text("job-progress-text"), "the same figure as the API")
	return j
}

// changedGSA writes the July GSA catalog with one dataset's title changed and the descriptions
// of two others removed (a required field: two validation errors), and returns its path and
// the changed dataset's identifier.
func changedGSA(t *testing.T) (path, changed string) {
	t.Helper()
	raw, err := os.ReadFile(corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json"))
	require.NoError(t, err)
	var cat map[string]any
	require.NoError(t, json.Unmarshal(raw, &cat))
	datasets := cat["dataset"].([]any)
	first := datasets[0].(map[string]any)
	first["title"] = "Retitled by the browser test"
	for _, d := range datasets[1:3] {
		delete(d.(map[string]any), "description")
	}
	out, err := json.Marshal(cat)
	require.NoError(t, err)
	path = filepath.Join(t.TempDir(), "data.json")
	require.NoError(t, os.WriteFile(path, out, 0o644))
	return path, first["identifier"].(string)
}

// TestWebUIInABrowser drives the operators' web UI of a real `harvester serve` (Postgres, NATS,
// every stage) from headless Chromium as an operator would: sign in, add an organization and a
// source of a corpus catalog served locally, harvest it watching the progress bar reach 100%
// with the API's counts, harvest a changed catalog, open its record errors and download them
// as CSV, open an updated record's field diff, and clear the source. Each page is
// screenshotted into the test's output folder (browsertest.Output).
func TestWebUIInABrowser(t *testing.T) {
	ctx := browsertest.New(t)
	t.Setenv("HARVESTER_API_KEY", "s3cret")
	agency := corpustest.NewServer(t)
	agency.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	c := startServe(t, freeAddr(t), "--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t),
		"--scheduler-interval", "50ms")
	u := &ui{t: t, ctx: ctx, api: c, base: c.base}

	// Signed out, a write page sends to the sign-in form; a wrong key is refused at the field.
	u.open("/organizations/new")
	u.shot("organization-new-signed-out")
	u.open("/sign-in?next=/organizations/new")
	u.type_("api_key", "wrong")
	u.do("sign in", chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("api_key-error")))
	u.shot("sign-in-refused")
	u.type_("api_key", "s3cret"+kb.Enter) // by keyboard: Enter submits the form
	u.waitPath(regexp.MustCompile(`^/organizations/new$`))
	u.do("signed in", chromedp.WaitVisible(chromedp.ID("sign-out")))

	// An organization: a bad slug is refused at the field, then it is created.
	u.type_("name", "General Services Administration")
	u.type_("slug", "Not A Slug!")
	u.do("save", chromedp.Click(chromedp.ID("organization-submit")), chromedp.WaitVisible(chromedp.ID("slug-error")))
	u.shot("organization-form-error")
	u.do("clear slug", chromedp.Clear(chromedp.ID("slug")))
	u.type_("slug", "gsa")
	org := u.submit("organization-submit", orgPath)
	orgID := strings.TrimPrefix(org, "/organizations/")
	require.Equal(t, "gsa", u.text("organization-slug"))
	u.shot("organization")

	// A source of the agency's data.json.
	u.open("/harvest_sources/new")
	u.type_("name", "GSA data.json")
	u.type_("url", agency.URL())
	u.do("choose", chromedp.SetValue(chromedp.ID("organization_id"), orgID),
		chromedp.SetValue(chromedp.ID("source_type"), "document"),
		chromedp.SetValue(chromedp.ID("schema_type"), "dcatus1.1: federal"),
		chromedp.SetValue(chromedp.ID("frequency"), "manual"))
	u.shot("source-form")
	src := u.submit("source-submit", sourcePath)
	require.Equal(t, agency.URL(), u.text("source-url"))
	require.Equal(t, "0", u.text("source-dataset-count"))

	// The first harvest: the bar moves to 100% and the counts are the API's.
	job := u.startJob(src, "harvest")
	u.shot("job-started")
	seen := u.watchJob()
	require.Equal(t, 100.0, seen[len(seen)-1].Value)
	first := u.checkCounts(strings.TrimPrefix(job, "/harvest_jobs/"))
	require.Equal(t, "complete", first.Status)
	require.Equal(t, 339, first.Added)
	require.Equal(t, "None.", u.text("record-errors-none"))
	u.shot("job-first")
	u.open(src)
	require.Equal(t, "339", u.text("source-dataset-count"))
	rowPct, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`document.querySelector("#jobs-table a[href='`+job+`']").closest("tr").cells[3].textContent.trim()`))
	require.NoError(t, err)
	require.Equal(t, "100.0%", rowPct, "the source page's job history shows the job page's figure")
	u.do("chart", chromedp.WaitVisible(chromedp.ID("jobs-chart")))

	// A second harvest of a changed catalog: updates and two invalid records.
	changedFile, changedID := changedGSA(t)
	agency.Serve(changedFile)
	job = u.startJob(src, "harvest")
	seen = u.watchJob()
	require.Equal(t, 100.0, seen[len(seen)-1].Value)
	jobID := strings.TrimPrefix(job, "/harvest_jobs/")
	second := u.checkCounts(jobID)
	require.Equal(t, "complete", second.Status)
	require.Equal(t, 2, second.Errored)
	require.Positive(t, second.Updated)
	u.shot("job")

	// The record errors: a group per type, opened; the CSV has every row the API has.
	var errs struct{ Total int }
	c.call("GET", "/api/v1/harvest_jobs/"+jobID+"/record_errors", nil, http.StatusOK, &errs)
	require.Positive(t, errs.Total)
	groups, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](
		`[...document.querySelectorAll("#record-error-groups details.error-group .group-count")].map(e => +e.textContent)`))
	require.NoError(t, err)
	sum := 0
	for _, n := range groups {
		sum += n
	}
	require.Equal(t, errs.Total, sum, "the groups count every record error")
	u.do("open the group", chromedp.Click(chromedp.CSS("#record-error-groups details.error-group summary")),
		chromedp.WaitVisible(chromedp.CSS("#record-error-groups details.error-group[open] a.record-link")))
	u.shot("job-errors-open")
	browsertest.ScreenshotScaled(ctx, t, "readme-job", "main", 0.6) // docs/ui-job.png
	csvPath := browsertest.Download(ctx, t, "#download-csv")
	body, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, errs.Total+1, "a header and every record error")
	u.do("an errored record", chromedp.Click(chromedp.CSS("#record-error-groups details.error-group[open] a.record-link")))
	u.waitPath(recordPath)
	require.Contains(t, u.text("record-errors"), "description")
	u.shot("record-errored")

	// The retitled dataset's record: the field diff from the previous version.
	u.open("/datasets?" + url.Values{"source_id": {strings.TrimPrefix(src, "/harvest_sources/")},
		"identifier": {changedID}}.Encode())
	u.shot("dataset")
	u.do("its record", chromedp.Click(chromedp.ID("dataset-record")))
	u.waitPath(recordPath)
	require.Equal(t, "update", u.text("record-action"))
	u.do("diff", chromedp.WaitVisible(chromedp.ID("record-diff")))
	diff, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](
		`Object.fromEntries([...document.querySelectorAll("#record-diff tr[data-path]")].map(r => [r.dataset.path, r.cells[3].textContent]))`))
	require.NoError(t, err)
	var title string
	for path, after := range diff {
		if strings.HasSuffix(path, "title") && !strings.Contains(path, "[") {
			title = after
		}
	}
	require.Contains(t, title, "Retitled by the browser test", "the diff shows the new title: %v", diff)
	u.shot("record-diff")

	// The other pages, for the record.
	for _, p := range []struct{ path, id string }{
		{"/harvest_sources", "sources-table"}, {"/organizations", "organizations-table"},
		{"/search?q=data", "search-form"}, {"/validate", "validate-form"}, {"/dashboard", "jobs-by-status"},
	} {
		u.open(p.path)
		u.do("wait "+p.id, chromedp.WaitVisible(chromedp.ID(p.id)))
		u.shot(strings.Trim(strings.ReplaceAll(strings.SplitN(p.path, "?", 2)[0], "/", "-"), "-"))
	}

	// Clear: the confirmation says how many datasets go; afterwards the source has none.
	var live struct {
		DatasetCount int `json:"dataset_count"`
	}
	u.open(src)
	live.DatasetCount, err = strconv.Atoi(u.text("source-dataset-count"))
	require.NoError(t, err)
	require.Positive(t, live.DatasetCount)
	u.shot("source")
	browsertest.ScreenshotScaled(ctx, t, "readme-source", "main", 0.6) // docs/ui-source.png
	u.do("clear", chromedp.Click(chromedp.ID("action-clear")), chromedp.WaitVisible(chromedp.ID("job-confirm")))
	require.Contains(t, u.text("job-explain"), strconv.Itoa(live.DatasetCount)+" datasets")
	u.shot("clear-confirm")
	job = u.submit("job-confirm", jobPath)
	seen = u.watchJob()
	require.Equal(t, "complete", seen[len(seen)-1].Status)
	u.checkCounts(strings.TrimPrefix(job, "/harvest_jobs/"))
	u.open(src)
	require.Equal(t, "0", u.text("source-dataset-count"))
	u.shot("source-cleared")
}

// TestWebWritesNeedSessionAndCSRF: on a real `harvester serve`, a form post without a session
// goes to the sign-in page and writes nothing; signed in, a post without the CSRF token, or
// with another one, is refused (403) and writes nothing; with it, the write is done.
func TestWebWritesNeedSessionAndCSRF(t *testing.T) {
	t.Setenv("HARVESTER_API_KEY", "s3cret")
	c := startServe(t, freeAddr(t), "--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t))
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path string, form url.Values) *http.Response {
		t.Helper()
		resp, err := client.PostForm(c.base+path, form)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	token := func(path string) string {
		t.Helper()
		resp, err := client.Get(c.base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		m := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindSubmatch(body)
		require.NotNil(t, m, "a CSRF token on %s", path)
		return string(m[1])
	}
	orgs := func() int {
		var list struct{ Total int }
		c.call("GET", "/api/v1/organizations", nil, http.StatusOK, &list)
		return list.Total
	}
	org := url.Values{"name": {"Department of Energy"}, "slug": {"doe"}}

	resp := post("/organizations", org)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "no session")
	require.True(t, strings.HasPrefix(resp.Header.Get("Location"), "/sign-in?next="), resp.Header.Get("Location"))
	require.Zero(t, orgs())

	require.Equal(t, http.StatusForbidden, post("/sign-in", url.Values{"api_key": {"s3cret"}}).StatusCode,
		"the sign-in form needs its token too")
	resp = post("/sign-in", url.Values{"api_key": {"s3cret"}, "csrf_token": {token("/sign-in")}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "harvester_session" {
			session = ck
		}
	}
	require.NotNil(t, session, "a session cookie")
	require.True(t, session.HttpOnly, "HttpOnly")
	require.Equal(t, http.SameSiteStrictMode, session.SameSite, "SameSite=Strict")

	require.Equal(t, http.StatusForbidden, post("/organizations", org).StatusCode, "no CSRF token")
	bad := url.Values{"name": org["name"], "slug": org["slug"], "csrf_token": {"not-the-token-of-this-session"}}
	require.Equal(t, http.StatusForbidden, post("/organizations", bad).StatusCode, "another CSRF token")
	require.Zero(t, orgs(), "a refused post writes nothing")

	good := url.Values{"name": org["name"], "slug": org["slug"], "csrf_token": {token("/organizations/new")}}
	resp = post("/organizations", good)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Regexp(t, orgPath, resp.Header.Get("Location"))
	require.Equal(t, 1, orgs())
}
