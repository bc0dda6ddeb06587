package web

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/store"
)

// catalogFix is a fix summed over the catalog's sources: the datasets of every source that miss
// the indicator, the datasets that would gain the most catalog-wide, and the sources that would
// gain the most (each linking to its quality page).
type catalogFix struct {
	fixView
	Sources []fixSource
}

// fixSource is a source's part of a catalog fix.
type fixSource struct {
	ID, Name string
	Datasets int
	Gain     string
	gain     float64
}

// sourceRank is a source in the catalog's ranking by score.
type sourceRank struct {
	ID, Name string
	Datasets int
	Mean     float64
	Score    string
	Rating   quality.Rating
	Broken   int
}

// catalogQualityData is quality_catalog.html's data.
type catalogQualityData struct {
	Quality  *assess.Source
	Score    string
	Fixes    []catalogFix
	Examples int
	Sources  []sourceRank // the sources with live datasets, the best score first
	Empty    int          // sources without a live dataset, left out of Sources
	Trend    trendChart
	Recorded int // points in the trend (at most trendMax)
}

// catalogQuality answers /quality: the whole catalog's quality now (every source scored from its
// stored records and link checks, as its own quality page is, one source at a time), the
// indicators ranked by the points meeting them would gain across the catalog with the datasets
// and the sources to fix first, the sources ranked by score, and the catalog's trend (the
// aggregates jobs recorded).
func (s *server) catalogQuality(w http.ResponseWriter, r *http.Request) error {
	// The page scores every live dataset, so requests that arrive while one is being made share
	// its answer (a flood of anonymous requests costs one scoring at a time, not one each); the
	// scoring runs to its end for them even if the first requester leaves.
	v, err, _ := s.catalogScoring.Do("catalog", func() (any, error) {
		return s.catalogQualityNow(context.WithoutCancel(r.Context()))
	})
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "quality_catalog.html", "Metadata quality of the catalog", v.(*catalogQualityData))
}

// catalogQualityNow scores the catalog for catalogQuality; errors are the store's, wrapped.
func (s *server) catalogQualityNow(ctx context.Context) (*catalogQualityData, error) {
	d := &catalogQualityData{Examples: qualityExamples}
	var parts []*assess.Source
	fixes := map[quality.Metric]*catalogFix{}
	err := s.eachSource(ctx, func(src *store.Source) error {
		fx, err := assess.SourceFixes(ctx, s.store, src.ID, qualityExamples)
		if err != nil {
			return err
		}
		parts = append(parts, fx.Source)
		if fx.Source.Datasets == 0 {
			d.Empty++
			return nil
		}
		d.Sources = append(d.Sources, sourceRank{ID: src.ID, Name: src.Name, Datasets: fx.Source.Datasets,
			Mean: fx.Source.Mean, Score: points(fx.Source.Mean), Rating: fx.Source.Rating, Broken: fx.Source.Links.Broken})
		for _, f := range fx.Fixes {
			addCatalogFix(fixes, src, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.Quality = assess.CombineSources(parts...)
	d.Score = points(d.Quality.Mean)
	slices.SortStableFunc(d.Sources, func(a, b sourceRank) int {
		return cmp.Or(cmp.Compare(b.Mean, a.Mean), strings.Compare(a.Name, b.Name))
	})
	for i, in := range quality.Indicators { // the MQA's order, then by gain (stable)
		if f := fixes[in.Metric]; f != nil {
			f.IndicatorSummary = d.Quality.Indicators[i]
			d.Fixes = append(d.Fixes, f.finish())
		}
	}
	slices.SortStableFunc(d.Fixes, func(a, b catalogFix) int { return cmp.Compare(b.Gain, a.Gain) })
	rows, err := s.store.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{Scope: store.QualityScopeCatalog,
		Limit: trendMax})
	if err != nil {
		return nil, fmt.Errorf("read the catalog's quality history: %w", err)
	}
	d.Trend, d.Recorded = trendOf(rows), len(rows)
	return d, nil
}

// eachSource calls fn with every source, a page of them at a time, ordered by name; fn's error
// stops and is returned.
func (s *server) eachSource(ctx context.Context, fn func(*store.Source) error) error {
	p := &store.SourceListParams{PageParams: store.PageParams{Limit: store.DefaultLimit}}
	for {
		srcs, _, err := s.store.SourceList(ctx, p)
		if err != nil {
			return fmt.Errorf("list the sources: %w", err)
		}
		for _, src := range srcs {
			if err := fn(src); err != nil {
				return err
			}
		}
		if len(srcs) < p.Limit {
			return nil
		}
		p.Offset += len(srcs)
	}
}

// addCatalogFix adds src's fix f to the catalog's fix of its indicator: its datasets, gain and
// unchecked datasets summed, its examples among the catalog's (the best qualityExamples kept).
func addCatalogFix(fixes map[quality.Metric]*catalogFix, src *store.Source, f *assess.Fix) {
	c := fixes[f.Metric]
	if c == nil {
		c = &catalogFix{fixView: fixView{Fix: &assess.Fix{IndicatorSummary: f.IndicatorSummary, PerDataset: f.PerDataset}}}
		fixes[f.Metric] = c
	}
	c.Datasets += f.Datasets
	c.Gain += f.Gain
	c.Unchecked += f.Unchecked
	c.Fix.Examples = append(c.Fix.Examples, f.Examples...)
	slices.SortStableFunc(c.Fix.Examples, func(a, b assess.FixDataset) int {
		return cmp.Or(cmp.Compare(b.Gain, a.Gain), strings.Compare(a.Slug, b.Slug))
	})
	c.Fix.Examples = c.Fix.Examples[:min(len(c.Fix.Examples), qualityExamples)]
	c.Sources = append(c.Sources, fixSource{ID: src.ID, Name: src.Name, Datasets: f.Datasets, Gain: points(f.Gain), gain: f.Gain})
}

// finish words the summed fix as the quality page does (fixViewOf) and keeps its sources.
// Its sources are ordered by the points they would gain, the most first (then by name).
func (c *catalogFix) finish() catalogFix {
	slices.SortStableFunc(c.Sources, func(a, b fixSource) int {
		return cmp.Or(cmp.Compare(b.gain, a.gain), strings.Compare(a.Name, b.Name))
	})
	return catalogFix{fixView: fixViewOf(c.Fix), Sources: c.Sources}
}
