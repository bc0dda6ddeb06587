package main

import (
	"strings"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/web/browsertest"
)

// rowOf evaluates expr (a JavaScript expression of the table row r) on the sources list's row
// of the source at path src.
func (w *walk) rowOf(src, expr string) string {
	w.t.Helper()
	id := strings.TrimPrefix(src, "/harvest_sources/")
	s, err := chromedp.Run(w.ctx, chromedp.Evaluate[string](`(r => `+expr+`)(document.querySelector(
		"#sources-table tr[data-source-id='`+id+`']"))`))
	require.NoError(w.t, err, "row of %s", src)
	return s
}

// failingSourceInTheList: a source whose every record fails validation is harvested; the
// sources list shows it "failing" with its errored count (not a green "complete"), the GSA
// source "errors" with its two; the search form finds it by name and health; its name opens it.
func (w *walk) failingSourceInTheList() {
	t := w.t
	feed := corpustest.NewServer(t)
	feed.Serve(brokenGSA(t))
	w.broken = w.addSource("GSA broken feed", feed.URL())
	w.brokenJob = w.startJob(w.broken, "harvest")
	w.watchJob()
	j := w.checkCounts(strings.TrimPrefix(w.brokenJob, "/harvest_jobs/"))
	require.Equal(t, 3, j.Errored)
	require.Zero(t, j.Added)

	w.open("/harvest_sources")
	require.Equal(t, "failing", w.rowOf(w.broken, `r.dataset.health`))
	require.Equal(t, "3", w.rowOf(w.broken, `r.querySelector(".errored-count").textContent.trim()`))
	require.Equal(t, "never", w.rowOf(w.broken, `r.querySelector(".last-success").textContent.trim()`))
	require.Equal(t, "0", w.rowOf(w.broken, `String(r.querySelectorAll(".status-complete").length)`),
		"no green complete")
	require.Equal(t, "errors", w.rowOf(w.src, `r.dataset.health`))
	require.Equal(t, "2", w.rowOf(w.src, `r.querySelector(".errored-count").textContent.trim()`))
	w.shot("sources")
	browsertest.ScreenshotScaled(w.ctx, t, "readme-sources", "main", 0.6) // docs/ui-sources.png

	w.type_("filter-q", "broken")
	w.do("health", chromedp.SetValue(chromedp.ID("filter-health"), "failing"),
		chromedp.SetValue(chromedp.ID("filter-sort"), "health"))
	w.do("apply", chromedp.Click(chromedp.ID("filter-submit")))
	browsertest.Until(w.ctx, t, "the filtered list", `location.search.includes("health=failing") && !!document.getElementById("sources-table")`)
	n, err := chromedp.Run(w.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#sources-table tr[data-source-id]").length`))
	require.NoError(t, err)
	require.Equal(t, 1, n, "only the broken feed is failing and named so")
	id := strings.TrimPrefix(w.broken, "/harvest_sources/")
	w.do("open it", chromedp.Click(chromedp.CSS(`#sources-table tr[data-source-id='`+id+`'] td a`)))
	require.Equal(t, w.broken, w.waitPath(sourcePath))
}

// failingJob: from the failing source's page to its job, whose record errors are listed with
// their severity, and whose records (which failed validation) are not offered a replay that
// would do nothing.
func (w *walk) failingJob() {
	t := w.t
	w.do("its job", chromedp.Click(chromedp.CSS(`#jobs-table a[href='`+w.brokenJob+`']`)))
	require.Equal(t, w.brokenJob, w.waitPath(jobPath))
	require.Equal(t, "3", w.text("count-errored"))

	// The record errors are listed as errors, each group naming its severity; no *Warning type
	// is among them.
	groups, err := chromedp.Run(w.ctx, chromedp.Evaluate[map[string]string](
		`Object.fromEntries([...document.querySelectorAll("#record-error-groups details.error-group")].map(
			g => [g.dataset.type, g.dataset.severity]))`))
	require.NoError(t, err)
	require.Equal(t, "error", groups["ValidationError"])
	for typ, severity := range groups {
		require.False(t, strings.HasSuffix(typ, "Warning"), typ)
		require.Equal(t, "error", severity, typ)
	}

	// The records failed validation, so replaying them would do nothing: no replay button, and
	// the page says why and what to do instead.
	replay, err := chromedp.Run(w.ctx, chromedp.Evaluate[bool](`!!document.getElementById("action-replay")`))
	require.NoError(t, err)
	require.False(t, replay, "a replay of records that failed validation would do nothing")
	require.Contains(t, w.text("replay-note"), "validation")
	w.shot("job-failing")
}

// warnedJob: a DCAT-US 3.0 source two of whose three records warn; its job lists the
// findings under Warnings, as warnings, and no record error.
func (w *walk) warnedJob() {
	t := w.t
	feed := corpustest.NewServer(t)
	feed.Serve(corpustest.Path(t, "dcatus/dcatus3-warning.json"))
	src := w.addSource("DCAT-US 3.0 with warnings", feed.URL(), "dcatus3.0")
	job := w.startJob(src, "harvest")
	w.watchJob()
	j := w.checkCounts(strings.TrimPrefix(job, "/harvest_jobs/"))
	require.Equal(t, 3, j.Added)
	require.Equal(t, 2, j.Warned)
	require.Equal(t, "None.", w.text("record-errors-none"))
	require.Contains(t, w.text("record-warnings-total"), "2 record warnings")
	groups, err := chromedp.Run(w.ctx, chromedp.Evaluate[map[string]string](
		`Object.fromEntries([...document.querySelectorAll("#record-warning-messages details.message-group")].map(
			g => [g.dataset.type, g.dataset.severity]))`))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"ValidationWarning": "warning"}, groups)
	counts, err := chromedp.Run(w.ctx, chromedp.Evaluate[int](
		`[...document.querySelectorAll("#record-warning-messages details.message-group")].reduce((n, g) => n + +g.dataset.count, 0)`))
	require.NoError(t, err)
	require.Equal(t, 2, counts, "the messages count every warning")
	w.shot("job-warnings")
}

// dashboard: the timeline shows the broken feed's job as failed, keeps it when filtered by
// its organization, and its bars are links a keyboard reaches.
func (w *walk) dashboard() {
	t := w.t
	w.open("/dashboard")
	w.do("timeline", chromedp.WaitVisible(chromedp.ID("timeline")))
	jobID := strings.TrimPrefix(w.brokenJob, "/harvest_jobs/")
	bar := `document.querySelector("#timeline a[data-job-id='` + jobID + `']")`
	class, err := chromedp.Run(w.ctx, chromedp.Evaluate[string](bar+`.querySelector("rect").getAttribute("class")`))
	require.NoError(t, err)
	require.Equal(t, "bar-error", class, "every record errored: failed")
	w.do("organization", chromedp.SetValue(chromedp.ID("dashboard-organization"), w.orgID))
	w.do("apply", chromedp.Click(chromedp.ID("dashboard-filter-submit")))
	browsertest.Until(w.ctx, t, "the filtered dashboard", `location.search.includes("organization_id=") && !!document.getElementById("timeline")`)
	w.shot("dashboard")
	browsertest.ScreenshotScaled(w.ctx, t, "readme-dashboard", "#dashboard-timeline", 0.6) // docs/ui-dashboard.png
	focused, err := chromedp.Run(w.ctx, chromedp.Evaluate[bool](`(b => { b.focus(); return document.activeElement === b })(`+bar+`)`))
	require.NoError(t, err)
	require.True(t, focused, "a bar takes the keyboard focus")
	w.do("open the job", chromedp.Click(chromedp.CSS(`#timeline a[data-job-id='`+jobID+`'] rect`)))
	require.Equal(t, w.brokenJob, w.waitPath(jobPath))
}
