package main

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

var qualityPath = regexp.MustCompile(`^/harvest_sources/[0-9a-f-]{36}/quality$`)

// quality: after the two harvests, the source page's quality panel gives the score the API
// computes, recorded by each job (a trend point each, as the API's history); its link opens the
// quality page, whose score is the API's too and which ranks what to fix, naming datasets
// whose page has a quality panel.
func (w *walk) quality() {
	t := w.t
	srcID := strings.TrimPrefix(w.src, "/harvest_sources/")
	var q struct {
		Mean   float64
		Rating string
	}
	w.api.call("GET", "/api/v1/harvest_sources/"+srcID+"/quality", nil, http.StatusOK, &q)
	var hist struct{ Total int }
	w.api.call("GET", "/api/v1/harvest_sources/"+srcID+"/quality/history", nil, http.StatusOK, &hist)
	require.Equal(t, 2, hist.Total, "the two harvests recorded the quality")
	score := strconv.FormatFloat(q.Mean, 'f', 1, 64)

	w.open(w.src)
	require.Equal(t, score, w.text("source-quality-score"))
	require.Equal(t, q.Rating, w.text("source-quality-rating"))
	points, err := chromedp.Run(w.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#source-quality-trend .trend-point").length`))
	require.NoError(t, err)
	require.Equal(t, hist.Total, points, "a trend point per recorded job")
	w.do("panel", chromedp.ScrollIntoView(chromedp.ID("source-quality")))
	w.shot("source-quality")

	w.click("source-quality-link")
	w.waitPath(qualityPath)
	require.Equal(t, score, w.text("quality-score"))
	fixes, err := chromedp.Run(w.ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("#quality-fixes > li .fix-advice")].map(e => e.textContent)`))
	require.NoError(t, err)
	require.NotEmpty(t, fixes, "what to fix first")
	w.shot("quality")
	w.do("the first dataset to fix", chromedp.Click(chromedp.CSS("#quality-fixes > li .fix-datasets a")))
	w.waitPath(datasetPath)
	w.do("its quality", chromedp.WaitVisible(chromedp.ID("dataset-quality")))
	require.NotEmpty(t, w.text("dataset-quality-score"))
	w.shot("dataset-quality")
}

// catalogQuality: the dashboard's link opens the catalog's quality page; the catalog is the
// one source now, so its score is the API's for that source; the source is ranked and what to
// fix is listed; the trend has a point per job that recorded the catalog's quality (the API's
// catalog history); the ranked source links to its own quality page.
func (w *walk) catalogQuality() {
	t := w.t
	srcID := strings.TrimPrefix(w.src, "/harvest_sources/")
	var q struct{ Mean float64 }
	w.api.call("GET", "/api/v1/harvest_sources/"+srcID+"/quality", nil, http.StatusOK, &q)
	var hist struct{ Total int }
	w.api.call("GET", "/api/v1/quality/history", nil, http.StatusOK, &hist)
	require.Positive(t, hist.Total, "the harvests recorded the catalog's quality")

	w.open("/dashboard")
	w.click("dashboard-quality-link")
	w.waitPath(regexp.MustCompile(`^/quality$`))
	require.Equal(t, strconv.FormatFloat(q.Mean, 'f', 1, 64), w.text("quality-score"))
	ranked, err := chromedp.Run(w.ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("#quality-sources tbody tr")].map(e => e.dataset.sourceId)`))
	require.NoError(t, err)
	require.Equal(t, []string{srcID}, ranked)
	fixes, err := chromedp.Run(w.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#quality-fixes > li .fix-sources a").length`))
	require.NoError(t, err)
	require.Positive(t, fixes, "what to fix, by source")
	points, err := chromedp.Run(w.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#quality-trend .trend-point").length`))
	require.NoError(t, err)
	require.Equal(t, hist.Total, points, "a trend point per recorded job")
	w.shot("catalog-quality")
	w.do("the ranked source", chromedp.Click(chromedp.CSS("#quality-sources tbody a")))
	require.Equal(t, "/harvest_sources/"+srcID+"/quality", w.waitPath(qualityPath))
}
