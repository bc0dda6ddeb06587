package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

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

// submit clicks the submit button with the id, once it is visible, and waits until the browser
// is on a page whose path matches want. The click is the element's own (HTMLElement.click: the
// form is submitted with the button as its submitter), not a mouse event at the button's
// coordinates: under a CPU hog the walk once waited 5 minutes after a job confirmation's click
// for a job page that never came, cause unseen; a layout still settling, which moves a button
// between finding its box and pressing it, is the suspect.
func (u *ui) submit(id string, want *regexp.Regexp) string {
	u.t.Helper()
	u.do("visible #"+id, chromedp.WaitVisible(chromedp.ID(id)))
	ctx, cancel := u.bounded()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(b => { b.click(); return true })(document.getElementById(`+
		strconv.Quote(id)+`))`))
	cancel()
	require.NoError(u.t, err, "submit #"+id)
	return u.waitPath(want)
}

// click clicks the element with the id. Chrome's "Could not find node with given id" (the
// page's DOM was replaced between finding the button and clicking it, seen once under a CPU
// hog, before any click was sent) is tried again, at most twice.
func (u *ui) click(id string) {
	u.t.Helper()
	for attempt := 1; ; attempt++ {
		ctx, cancel := u.bounded()
		err := chromedp.Do(ctx, chromedp.Click(chromedp.ID(id)))
		cancel()
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "Could not find node") {
			require.NoError(u.t, err, "click #"+id)
			return
		}
	}
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

// attr is the attribute name of the element with the id, once it is visible.
func (u *ui) attr(id, name string) string {
	u.t.Helper()
	ctx, cancel := u.bounded()
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById(`+strconv.Quote(id)+`).getAttribute(`+strconv.Quote(name)+`) || ""`))
	require.NoError(u.t, err, "#%s[%s]", id, name)
	return v
}

func (u *ui) shot(name string) { u.t.Helper(); browsertest.Screenshot(u.ctx, u.t, name) }

var (
	orgPath    = regexp.MustCompile(`^/organizations/[0-9a-f-]{36}$`)
	sourcePath = regexp.MustCompile(`^/harvest_sources/[0-9a-f-]{36}$`)
	jobPath    = regexp.MustCompile(`^/harvest_jobs/[0-9a-f-]{36}$`)
	recordPath = regexp.MustCompile(`^/harvest_records/[0-9a-f-]{36}$`)
	// datasetPath is a public dataset page (a slug: catalogsync.Slug's characters)
	datasetPath = regexp.MustCompile(`^/dataset/[a-z0-9_-]+$`)
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
			status: document.getElementById("job-status").dataset.status, finished: p.dataset.finished} : null })()`
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
	require.Equal(u.t, j.Status, u.attr("job-status", "data-status"))
	require.NotNil(u.t, j.PercentSettled)
	require.Equal(u.t, 100.0, *j.PercentSettled)
	require.Equal(u.t, "100.0%", u.text("job-progress-text"), "the same figure as the API")
	return j
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
