package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/web/browsertest"
)

// gsaCatalog writes the July GSA catalog changed by edit (given its datasets, it returns the
// ones to keep) and returns its path.
func gsaCatalog(t *testing.T, edit func(datasets []any) []any) string {
	t.Helper()
	raw, err := os.ReadFile(corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json"))
	require.NoError(t, err)
	var cat map[string]any
	require.NoError(t, json.Unmarshal(raw, &cat))
	cat["dataset"] = edit(cat["dataset"].([]any))
	out, err := json.Marshal(cat)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "data.json")
	require.NoError(t, os.WriteFile(path, out, 0o644))
	return path
}

// changedGSA is the July GSA catalog with one dataset's title changed and the descriptions of
// two others removed (a required field: two validation errors), and the changed dataset's
// identifier.
func changedGSA(t *testing.T) (path, changed string) {
	t.Helper()
	path = gsaCatalog(t, func(datasets []any) []any {
		first := datasets[0].(map[string]any)
		first["title"] = "Retitled by the browser test"
		changed = first["identifier"].(string)
		for _, d := range datasets[1:3] {
			delete(d.(map[string]any), "description")
		}
		return datasets
	})
	return path, changed
}

// brokenGSA is three datasets of the July GSA catalog, none with a description: every record
// fails validation.
func brokenGSA(t *testing.T) string {
	return gsaCatalog(t, func(datasets []any) []any {
		for _, d := range datasets[:3] {
			delete(d.(map[string]any), "description")
		}
		return datasets[:3]
	})
}

// walk is TestWebUIInABrowser's state, passed from step to step.
type walk struct {
	*ui
	agency      *corpustest.Server
	orgID       string
	src, broken string // the paths of the GSA source and of the source whose records all fail
	brokenJob   string // the path of the broken source's job
}

// TestWebUIInABrowser drives the operators' web UI of a real `harvester serve` (Postgres, NATS,
// every stage) from headless Chromium as an operator would: sign in, add an organization and a
// source of a corpus catalog served locally, harvest it watching the progress bar reach 100%
// with the API's counts, harvest a changed catalog, open its record errors and download them
// as CSV, open an updated record's field diff, the source's metadata quality and its quality
// page and the catalog's; then the issue 26 walk: the sources list with
// health and counts, a failing source, its job, warnings shown as warnings, replay offered only
// where it does something, the dashboard; and clear the source. Each page is screenshotted
// into the test's output folder (browsertest.Output).
func TestWebUIInABrowser(t *testing.T) {
	ctx := browsertest.New(t)
	t.Setenv("HARVESTER_API_KEY", "s3cret")
	w := &walk{agency: corpustest.NewServer(t)}
	w.agency.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	c := startServe(t, freeAddr(t), "--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t),
		"--scheduler-interval", "50ms")
	w.ui = &ui{t: t, ctx: ctx, api: c, base: c.base}

	w.signInAndAddOrganization()
	w.src = w.addSource("GSA data.json", w.agency.URL())
	w.firstHarvest()
	jobID, changedID := w.changedHarvest()
	w.recordErrors(jobID)
	w.jobRecords(jobID)
	w.recordDiff(changedID)
	w.publicSearch(changedID)
	w.quality()
	w.catalogQuality()
	w.failingSourceInTheList()
	w.failingJob()
	w.warnedJob()
	w.crossSourceDuplicates()
	w.otherPages()
	w.dashboard()
	w.clear()
}

// signInAndAddOrganization: signed out, a write page sends to the sign-in form; a wrong key is
// refused at the field; then an organization, whose bad slug is refused at the field first.
func (w *walk) signInAndAddOrganization() {
	t := w.t
	w.open("/organizations/new")
	w.shot("organization-new-signed-out")
	w.open("/sign-in?next=/organizations/new")
	w.type_("api_key", "wrong")
	w.do("sign in", chromedp.Click(chromedp.ID("sign-in-submit")), chromedp.WaitVisible(chromedp.ID("api_key-error")))
	w.shot("sign-in-refused")
	w.type_("api_key", "s3cret"+kb.Enter) // by keyboard: Enter submits the form
	w.waitPath(regexp.MustCompile(`^/organizations/new$`))
	w.do("signed in", chromedp.WaitVisible(chromedp.ID("sign-out")))

	w.type_("name", "General Services Administration")
	w.type_("slug", "Not A Slug!")
	w.do("save", chromedp.Click(chromedp.ID("organization-submit")), chromedp.WaitVisible(chromedp.ID("slug-error")))
	w.shot("organization-form-error")
	w.do("clear slug", chromedp.Clear(chromedp.ID("slug")))
	w.type_("slug", "gsa")
	org := w.submit("organization-submit", orgPath)
	w.orgID = strings.TrimPrefix(org, "/organizations/")
	require.Equal(t, "gsa", w.text("organization-slug"))
	w.shot("organization")
}

// addSource adds a manual document source of the organization through the form (DCAT-US 1.1
// federal unless schemaType names another schema type) and returns its page's path.
func (w *walk) addSource(name, location string, schemaType ...string) string {
	w.open("/harvest_sources/new") // step 1: the type; step 2: that type's form
	w.do("choose the type", chromedp.SetValue(chromedp.ID("source_type"), "document"))
	w.click("source-type-submit")
	w.do("the document form", chromedp.WaitVisible(chromedp.ID("source-form")))
	require.Equal(w.t, "document", w.attr("source-form-type", "value"))
	w.type_("name", name)
	w.type_("url", location)
	w.do("choose", chromedp.SetValue(chromedp.ID("organization_id"), w.orgID),
		chromedp.SetValue(chromedp.ID("schema_type"), append(schemaType, "dcatus1.1: federal")[0]),
		chromedp.SetValue(chromedp.ID("frequency"), "manual"))
	w.shot("source-form")
	src := w.submit("source-submit", sourcePath)
	require.Equal(w.t, location, w.text("source-url"))
	require.Equal(w.t, "0", w.text("source-dataset-count"))
	return src
}

// firstHarvest: the bar moves to 100% and the counts are the API's; the source page's job
// history shows the job page's figure.
func (w *walk) firstHarvest() {
	t := w.t
	job := w.startJob(w.src, "harvest")
	w.shot("job-started")
	seen := w.watchJob()
	require.Equal(t, 100.0, seen[len(seen)-1].Value)
	first := w.checkCounts(strings.TrimPrefix(job, "/harvest_jobs/"))
	require.Equal(t, "complete", first.Status)
	require.Equal(t, 339, first.Added)
	require.Equal(t, "None.", w.text("record-errors-none"))
	w.shot("job-first")
	w.open(w.src)
	require.Equal(t, "339", w.text("source-dataset-count"))
	rowPct, err := chromedp.Run(w.ctx, chromedp.Evaluate[string](
		`document.querySelector("#jobs-table a[href='`+job+`']").closest("tr").cells[3].textContent.trim()`))
	require.NoError(t, err)
	require.Equal(t, "100.0%", rowPct, "the source page's job history shows the job page's figure")
	w.do("chart", chromedp.WaitVisible(chromedp.ID("jobs-chart")))
}

// changedHarvest harvests a changed catalog: updates and two invalid records. It returns the
// job's id and the retitled dataset's identifier.
func (w *walk) changedHarvest() (jobID, changedID string) {
	changedFile, changedID := changedGSA(w.t)
	w.agency.Serve(changedFile)
	job := w.startJob(w.src, "harvest")
	seen := w.watchJob()
	require.Equal(w.t, 100.0, seen[len(seen)-1].Value)
	jobID = strings.TrimPrefix(job, "/harvest_jobs/")
	second := w.checkCounts(jobID)
	require.Equal(w.t, "complete", second.Status)
	require.Equal(w.t, 2, second.Errored)
	require.Positive(w.t, second.Updated)
	w.shot("job")
	return jobID, changedID
}

// recordErrors: on the job page, a group per type, opened; the CSV has every row the API has;
// an errored record's page names the missing field.
func (w *walk) recordErrors(jobID string) {
	t := w.t
	var errs struct{ Total int }
	w.api.call("GET", "/api/v1/harvest_jobs/"+jobID+"/record_errors", nil, http.StatusOK, &errs)
	require.Positive(t, errs.Total)
	groups, err := chromedp.Run(w.ctx, chromedp.Evaluate[[]int](
		`[...document.querySelectorAll("#record-error-groups details.error-group .group-count")].map(e => +e.textContent)`))
	require.NoError(t, err)
	sum := 0
	for _, n := range groups {
		sum += n
	}
	require.Equal(t, errs.Total, sum, "the groups count every record error")
	w.do("open the group", chromedp.Click(chromedp.CSS("#record-error-groups details.error-group summary")),
		chromedp.WaitVisible(chromedp.CSS("#record-error-groups details.error-group[open] a.record-link")))
	w.shot("job-errors-open")
	browsertest.ScreenshotScaled(w.ctx, t, "readme-job", "main", 0.6) // docs/ui-job.png
	body, err := os.ReadFile(browsertest.Download(w.ctx, t, "#download-csv"))
	require.NoError(t, err)
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, errs.Total+1, "a header and every record error")
	w.do("an errored record", chromedp.Click(chromedp.CSS("#record-error-groups details.error-group[open] a.record-link")))
	w.waitPath(recordPath)
	require.Contains(t, w.text("record-errors"), "description")
	w.shot("record-errored")
}

// jobRecords: from the job page, the list of its updated records has as many as the API's
// job counts updated, and an update's "what changed" opens its record's field diff.
func (w *walk) jobRecords(jobID string) {
	t := w.t
	var j apiJob
	w.api.call("GET", "/api/v1/harvest_jobs/"+jobID, nil, http.StatusOK, &j)
	w.open("/harvest_jobs/" + jobID)
	require.NotContains(t, w.text("page-title"), jobID, "titled by source and time")
	require.Contains(t, w.text("page-title"), "GSA data.json — harvest job, ")
	w.click("records-update")
	w.waitPath(regexp.MustCompile(`^/harvest_jobs/[0-9a-f-]{36}/records$`))
	total := strings.TrimSuffix(w.text("records-total"), " records with action update.")
	n, err := strconv.Atoi(total)
	require.NoError(t, err, total)
	require.GreaterOrEqual(t, n, j.Updated, "every updated record")
	require.LessOrEqual(t, n, j.Updated+j.Errored, "and the updates that errored")
	rows, err := chromedp.Run(w.ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("#records-table tr.record")].map(r => r.dataset.action)`))
	require.NoError(t, err)
	require.Len(t, rows, min(n, 50), "a page of them")
	for _, a := range rows {
		require.Equal(t, "update", a)
	}
	w.shot("job-records")
	w.do("what changed", chromedp.Click(chromedp.CSS("#records-table tr.record a.record-diff")))
	w.waitPath(recordPath)
	require.Equal(t, "update", w.text("record-action"))
	w.do("its diff", chromedp.WaitVisible(chromedp.ID("diff-heading")))
}

// recordDiff: the retitled dataset's record shows the field diff from the previous version.
func (w *walk) recordDiff(changedID string) {
	w.open("/datasets?" + url.Values{"source_id": {strings.TrimPrefix(w.src, "/harvest_sources/")},
		"identifier": {changedID}}.Encode())
	w.waitPath(datasetPath) // the query-form URL redirects to the public dataset page
	require.Contains(w.t, w.text("page-title"), "Retitled by the browser test")
	require.Equal(w.t, changedID, w.text("dataset-identifier"))
	w.shot("dataset")
	w.do("its record", chromedp.Click(chromedp.ID("dataset-record")))
	w.waitPath(recordPath)
	require.Equal(w.t, "update", w.text("record-action"))
	w.do("diff", chromedp.WaitVisible(chromedp.ID("record-diff")))
	diff, err := chromedp.Run(w.ctx, chromedp.Evaluate[map[string]string](
		`Object.fromEntries([...document.querySelectorAll("#record-diff tr[data-path]")].map(r => [r.dataset.path, r.cells[3].textContent]))`))
	require.NoError(w.t, err)
	var title string
	for path, after := range diff {
		if strings.HasSuffix(path, "title") && !strings.Contains(path, "[") {
			title = after
		}
	}
	require.Contains(w.t, title, "Retitled by the browser test", "the diff shows the new title: %v", diff)
	w.shot("record-diff")
}

// publicSearch: the public search page finds the retitled dataset by a phrase of its new
// title, a facet link narrows the hits and keeps the query, and a hit opens its dataset page.
func (w *walk) publicSearch(changedID string) {
	w.open("/dataset")
	w.do("search", chromedp.SendKeys(chromedp.ID("q"), `"Retitled by the browser test"`),
		chromedp.Click(chromedp.ID("search-submit")))
	browsertest.Until(w.ctx, w.t, "the search's hits",
		`location.pathname === "/dataset" && new URLSearchParams(location.search).get("q") !== null && !!document.getElementById("search-total")`)
	require.Equal(w.t, "1 datasets", w.text("search-total"))
	w.shot("public-search")
	w.do("a facet", chromedp.Click(chromedp.CSS(`#facet-organization a`)))
	browsertest.Until(w.ctx, w.t, "the narrowed search",
		`new URLSearchParams(location.search).has("organization") && !!document.getElementById("active-filters")`)
	require.Equal(w.t, "1 datasets", w.text("search-total"), "the facet keeps the query")
	w.do("a hit", chromedp.Click(chromedp.CSS(`#search-hits li h3 a`)))
	w.waitPath(datasetPath)
	require.Equal(w.t, changedID, w.text("dataset-identifier"))
}

// otherPages opens the remaining pages, for the record.
func (w *walk) otherPages() {
	for _, p := range []struct{ path, id string }{
		{"/organizations", "organizations-table"}, {"/search?q=data", "search-form"}, {"/validate", "validate-form"},
	} {
		w.open(p.path)
		w.do("wait "+p.id, chromedp.WaitVisible(chromedp.ID(p.id)))
		w.shot(strings.Trim(strings.ReplaceAll(strings.SplitN(p.path, "?", 2)[0], "/", "-"), "-"))
	}
}

// clear: the confirmation says how many datasets go; afterwards the source has none.
func (w *walk) clear() {
	w.open(w.src)
	live, err := strconv.Atoi(w.text("source-dataset-count"))
	require.NoError(w.t, err)
	require.Positive(w.t, live)
	w.shot("source")
	browsertest.ScreenshotScaled(w.ctx, w.t, "readme-source", "main", 0.6) // docs/ui-source.png
	w.do("clear", chromedp.Click(chromedp.ID("action-clear")), chromedp.WaitVisible(chromedp.ID("job-confirm")))
	require.Contains(w.t, w.text("job-explain"), strconv.Itoa(live)+" datasets")
	w.shot("clear-confirm")
	job := w.submit("job-confirm", jobPath)
	seen := w.watchJob()
	require.Equal(w.t, "complete", seen[len(seen)-1].Status)
	w.checkCounts(strings.TrimPrefix(job, "/harvest_jobs/"))
	w.open(w.src)
	require.Equal(w.t, "0", w.text("source-dataset-count"))
	w.shot("source-cleared")
}
