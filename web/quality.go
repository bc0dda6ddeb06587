package web

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/store"
)

// The metadata quality panels and page (docs/quality.md): the recorded quality of a source or
// an organization (the aggregate its latest job stored), a dataset's score from its stored
// record and link checks, and a source's quality page ranking what to fix, with its trend.

// advice says what a publisher does to meet each indicator, as "<advice> to these N datasets".
var advice = map[quality.Metric]string{
	quality.KeywordAvailability:                "Add keywords",
	quality.CategoryAvailability:               "Add a theme (category)",
	quality.SpatialAvailability:                "Add the spatial coverage",
	quality.TemporalAvailability:               "Add the temporal coverage",
	quality.AccessURLStatusCode:                "Mend the broken access URLs",
	quality.DownloadURLAvailability:            "Add a download URL to each distribution",
	quality.DownloadURLStatusCode:              "Mend the broken download URLs",
	quality.FormatAvailability:                 "Give each distribution a format",
	quality.MediaTypeAvailability:              "Give each distribution a media type",
	quality.FormatMediaTypeVocabularyAlignment: "Use formats and media types from the EU and IANA vocabularies",
	quality.FormatMediaTypeNonProprietary:      "Offer a non-proprietary format (CSV, JSON, …)",
	quality.FormatMediaTypeMachineReadable:     "Offer a machine-readable format",
	quality.DCATAPCompliance:                   "Fix the validation errors and warnings",
	quality.LicenceAvailability:                "Add a licence",
	quality.KnownLicence:                       "Use a known licence (CC, ODC, …)",
	quality.AccessRightsAvailability:           "Add the access level",
	quality.AccessRightsVocabularyAlignment:    "Use public, restricted public or non-public as the access level",
	quality.ContactPointAvailability:           "Add a contact point",
	quality.PublisherAvailability:              "Add a publisher",
	quality.RightsAvailability:                 "Add the rights",
	quality.ByteSizeAvailability:               "Give each distribution its byte size",
	quality.DateIssuedAvailability:             "Add the date issued",
	quality.DateModifiedAvailability:           "Add the date modified",
}

// adviceOf is the advice of metric m, or its name.
func adviceOf(m quality.Metric) string {
	if a, ok := advice[m]; ok {
		return a
	}
	return "Meet " + string(m)
}

// uncheckedAdvice is the advice of a status-code indicator whose links were never checked:
// they may well answer, so the first thing is to check them.
func uncheckedAdvice(m quality.Metric) string {
	what := "links"
	switch m {
	case quality.AccessURLStatusCode:
		what = "access URLs"
	case quality.DownloadURLStatusCode:
		what = "download URLs"
	}
	return "Have the " + what + " checked (never checked yet: harvester harvest --check-links)"
}

// points formats a number of points with one decimal.
func points(p float64) string { return strconv.FormatFloat(p, 'f', 1, 64) }

// qualityPanel is a source's or an organization's recorded quality, as their pages show it.
type qualityPanel struct {
	Recorded   bool // a job recorded it; false: nothing to show yet
	Score      string
	Rating     quality.Rating
	Datasets   int
	Links      assess.Links
	ComputedAt time.Time
	// Costliest are the indicators that cost the most points on average (at most 3).
	Costliest []costItem
	// Trend is the history as a chart (the source's and the organization's pages).
	Trend trendChart
}

// costItem is an indicator and what it costs the average dataset.
type costItem struct {
	Metric quality.Metric
	Advice string
	Lost   string
	Max    int
}

// trendMax is how many recorded jobs a trend chart shows, the newest: the catalog's history gains
// a row a job of any source, and every point is an element of a public page.
const trendMax = 100

// qualityPanelOf reads the latest recorded quality and the trend (trendMax) of scope's scopeID.
func (s *server) qualityPanelOf(ctx context.Context, scope, scopeID string) (*qualityPanel, error) {
	rows, err := s.store.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{Scope: scope, ScopeID: scopeID,
		Limit: trendMax})
	if err != nil {
		return nil, fmt.Errorf("read the quality history: %w", err)
	}
	p := &qualityPanel{Trend: trendOf(rows)}
	if len(rows) == 0 {
		return p, nil
	}
	latest, err := s.store.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{Scope: scope, ScopeID: scopeID,
		Limit: 1, Summaries: true})
	if err != nil || len(latest) == 0 {
		return nil, fmt.Errorf("read the latest quality: %w", err)
	}
	q, err := assess.SourceOf(latest[0])
	if err != nil {
		return nil, err
	}
	p.Recorded, p.Score, p.Rating, p.Datasets, p.Links = true, points(q.Mean), q.Rating, q.Datasets, q.Links
	p.ComputedAt = latest[0].ComputedAt
	for _, c := range q.Costliest(3) {
		p.Costliest = append(p.Costliest, costItem{Metric: c.Metric, Advice: adviceOf(c.Metric), Lost: points(c.Lost), Max: c.Max})
	}
	return p, nil
}

// trendChart is an inline SVG line chart of a quality history, oldest on the left, the rating
// bands' bounds (120, 220, 350 of 405 points) drawn across.
type trendChart struct {
	Width, Height int
	Points        []trendPoint
	Line          string // the polyline's points attribute
	Bands         []trendBand
}

type trendPoint struct {
	X, Y  int
	JobID string
	Title string // the date, score and rating, for the <title> tooltip and screen readers
}

type trendBand struct {
	Y     int
	Label string
}

const (
	trendWidth  = 640
	trendHeight = 180
	trendLeft   = 40 // room for the band labels
	trendTop    = 10
)

// trendY is the y of a score on the chart.
func trendY(p float64) int {
	return trendTop + int((1-p/float64(quality.MaxPoints))*float64(trendHeight-2*trendTop))
}

// trendOf charts rows (oldest first): one point per recorded job, spread over the width.
func trendOf(rows []*store.QualityAggregate) trendChart {
	c := trendChart{Width: trendWidth, Height: trendHeight}
	for _, b := range []struct {
		p     float64
		label string
	}{{350, "350"}, {220, "220"}, {120, "120"}} {
		c.Bands = append(c.Bands, trendBand{Y: trendY(b.p), Label: b.label})
	}
	span := trendWidth - trendLeft - 10
	for i, r := range rows {
		x := trendLeft + span/2
		if len(rows) > 1 {
			x = trendLeft + i*span/(len(rows)-1)
		}
		pt := trendPoint{X: x, Y: trendY(r.Mean), JobID: r.JobID,
			Title: r.ComputedAt.UTC().Format("2006-01-02 15:04") + ": " + points(r.Mean) + " points (" + r.Rating + "), " +
				strconv.Itoa(r.Datasets) + " datasets, " + strconv.Itoa(r.LinksBroken) + " broken links"}
		c.Points = append(c.Points, pt)
		if c.Line != "" {
			c.Line += " "
		}
		c.Line += strconv.Itoa(pt.X) + "," + strconv.Itoa(pt.Y)
	}
	return c
}

// fixView is a fix as the quality page words it.
type fixView struct {
	*assess.Fix
	Advice   string
	Each     string // the points each dataset gains (dataset indicators), or the most one gains
	Total    string
	Examples []fixExample
}

type fixExample struct {
	assess.FixDataset
	Path string
	Gain string
}

// fixViewOf words f: its advice (to have the links checked when every dataset that misses it
// does so only for links never checked), the points each dataset gains (its examples are the
// best first), in all, and its example datasets with their pages.
func fixViewOf(f *assess.Fix) fixView {
	v := fixView{Fix: f, Advice: adviceOf(f.Metric), Total: points(f.Gain)}
	if f.Unchecked == f.Datasets {
		v.Advice = uncheckedAdvice(f.Metric)
	}
	if len(f.Examples) > 0 {
		v.Each = points(f.Examples[0].Gain)
	}
	for _, e := range f.Examples {
		v.Examples = append(v.Examples, fixExample{FixDataset: e, Path: datasetPath(e.Slug), Gain: points(e.Gain)})
	}
	return v
}

// sourceQualityData is quality.html's data.
type sourceQualityData struct {
	Source   *store.Source
	Quality  *assess.Source
	Score    string
	Fixes    []fixView
	Examples int
	Trend    trendChart
	Recorded int // points in the trend (at most trendMax)
}

// qualityExamples is how many datasets the quality page names per fix.
const qualityExamples = 10

// sourceQuality answers /harvest_sources/{id}/quality: the source's quality now (scored from
// its stored records and link checks), the indicators ranked by the points meeting them would
// gain, each with the datasets to fix first, and the source's trend.
func (s *server) sourceQuality(w http.ResponseWriter, r *http.Request) error {
	src, err := s.getSource(r)
	if err != nil {
		return err
	}
	fixes, err := assess.SourceFixes(r.Context(), s.store, src.ID, qualityExamples)
	if err != nil {
		return err
	}
	rows, err := s.store.QualityAggregateHistory(r.Context(), &store.QualityAggregateHistoryParams{
		Scope: store.QualityScopeSource, ScopeID: src.ID, Limit: trendMax})
	if err != nil {
		return err
	}
	d := sourceQualityData{Source: src, Quality: fixes.Source, Score: points(fixes.Source.Mean), Examples: qualityExamples,
		Trend: trendOf(rows), Recorded: len(rows)}
	for _, f := range fixes.Fixes {
		d.Fixes = append(d.Fixes, fixViewOf(f))
	}
	return s.render(w, r, http.StatusOK, "quality.html", src.Name+" — metadata quality", d)
}

// datasetQualityView is the quality panel of a dataset's page.
type datasetQualityView struct {
	Score  string
	Rating quality.Rating
	// Missing are the indicators it does not meet fully, the most points first.
	Missing []missingView
	Broken  []assess.DatasetLink
	Links   int
	Unknown int // links never checked
}

type missingView struct {
	Metric quality.Metric
	Advice string
	Points string // scored
	Max    int
}

// datasetQualityOf scores the dataset dsID for its page; nil when it cannot be read (the page
// shows without its panel: the score is an addition to the record, not the record).
func (s *server) datasetQualityOf(ctx context.Context, dsID string) *datasetQualityView {
	q, err := assess.DatasetQuality(ctx, s.store, dsID)
	if err != nil {
		s.log.Warn("dataset page: quality", "dataset", dsID, "error", err)
		return nil
	}
	v := &datasetQualityView{Score: points(q.Score.Points), Rating: q.Score.Rating, Links: len(q.Links)}
	for _, is := range q.Score.Indicators {
		if float64(is.Max)-is.Points > 1e-9 {
			v.Missing = append(v.Missing, missingView{Metric: is.Metric, Advice: adviceOf(is.Metric), Points: points(is.Points), Max: is.Max})
		}
	}
	sortMissing(v.Missing)
	for _, l := range q.Links {
		switch {
		case l.Check == nil || !l.Check.Checked():
			v.Unknown++
		case !l.Check.OK:
			v.Broken = append(v.Broken, l)
		}
	}
	return v
}

// sortMissing orders the missing indicators by the points they cost, the most first (then in
// the MQA's order).
func sortMissing(m []missingView) {
	lost := func(v missingView) float64 {
		p, _ := strconv.ParseFloat(v.Points, 64)
		return float64(v.Max) - p
	}
	slices.SortStableFunc(m, func(a, b missingView) int { return cmp.Compare(lost(b), lost(a)) })
}
