package main

import (
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// crossSourceDuplicates: an agency's source and a mirror of it, added through the form with
// precedence -5, publish the same two datasets. The mirror's job page says it found two new
// cross-source duplicates, the agency's side live; a pair's link opens the agency's source
// page, which shows its precedence and the same pairs with its side marked.
func (w *walk) crossSourceDuplicates() {
	t := w.t
	catalog := sharedCatalog(t, "walk-dup-1", "walk-dup-2")
	agency, mirror := corpustest.NewServer(t), corpustest.NewServer(t)
	agency.Serve(catalog)
	mirror.Serve(catalog)
	own := w.addSource("Agency own catalog", agency.URL())
	w.startJob(own, "harvest")
	w.watchJob()

	w.open("/harvest_sources/new?source_type=document")
	w.type_("name", "Mirror of the agency")
	w.type_("url", mirror.URL())
	w.do("choose", chromedp.SetValue(chromedp.ID("schema_type"), federal),
		chromedp.SetValue(chromedp.ID("precedence"), "-5"))
	mirrorSrc := w.submit("source-submit", sourcePath)
	require.Equal(t, "-5 (higher wins a cross-source duplicate)", w.text("source-precedence"))
	job := w.startJob(mirrorSrc, "harvest")
	w.watchJob()
	require.Equal(t, job, w.waitPath(jobPath))
	require.Equal(t, "2", w.text("duplicates-count"))
	kept, err := chromedp.Run(w.ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("#duplicates-table td.duplicate-kept a.duplicate-source")].map(a => a.textContent)`))
	require.NoError(t, err)
	require.Equal(t, []string{"Agency own catalog", "Agency own catalog"}, kept, "the agency's datasets stay live")
	w.shot("job-duplicates")

	w.do("open the live side's source", chromedp.Click(chromedp.CSS(`#duplicates-table td.duplicate-kept a.duplicate-source`)))
	require.Equal(t, own, w.waitPath(sourcePath))
	require.Equal(t, "0 (higher wins a cross-source duplicate)", w.text("source-precedence"))
	require.Equal(t, "2", w.text("duplicates-count"))
	marked, err := chromedp.Run(w.ctx, chromedp.Evaluate[int](
		`[...document.querySelectorAll("#duplicates-table td.duplicate-kept")].filter(td => td.textContent.includes("(this source)")).length`))
	require.NoError(t, err)
	require.Equal(t, 2, marked, "the page's source is the live side of both")
	w.do("duplicates", chromedp.WaitVisible(chromedp.ID("duplicates-table")))
	w.shot("source-duplicates")
}
