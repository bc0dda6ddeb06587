package assess

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/store"
)

// Fix is an indicator that costs a source's datasets points, as a publisher would act on it:
// how many datasets do not meet it fully, how many points they would gain together by meeting
// it, and the datasets that would gain the most.
type Fix struct {
	quality.IndicatorSummary
	// PerDataset is true for an indicator judged on the dataset as a whole: each dataset that
	// misses it gains exactly Max by meeting it. Otherwise (judged per distribution) a dataset
	// gains the share of Max its distributions miss.
	PerDataset bool `json:"per_dataset"`
	// Datasets counts the datasets that do not meet it fully; Gain is the points they would
	// gain together (the source's mean rises by Gain over its datasets).
	Datasets int     `json:"datasets_missing"`
	Gain     float64 `json:"gain"`
	// Unchecked counts, of Datasets, those that miss a status-code indicator only because
	// some of their links were never checked (IndicatorScore.Unknown), not because they broke.
	Unchecked int `json:"unchecked"`
	// Examples are the datasets that would gain the most (then by slug), at most the n asked.
	Examples []FixDataset `json:"examples"`
}

// FixDataset is a dataset that misses an indicator and the points it would gain by meeting it.
type FixDataset struct {
	ID    string  `json:"id"`
	Slug  string  `json:"slug"`
	Title string  `json:"title"`
	Gain  float64 `json:"gain"`
}

// Fixes is a source's quality and its fixes, the largest total gain first (then in the MQA's
// order); an indicator that costs nothing is not among them.
type Fixes struct {
	Source *Source `json:"quality"`
	Fixes  []*Fix  `json:"fixes"`
}

// SourceFixes scores every live dataset of the source as SourceQuality does, in one pass, and
// returns its quality with the fixes that would raise it, each with at most examples datasets.
// Memory holds a batch of records and examples datasets per indicator.
func SourceFixes(ctx context.Context, st Store, sourceID string, examples int) (*Fixes, error) {
	out := &Fixes{Source: &Source{Summary: quality.Aggregate(nil)}}
	fixes := make([]*Fix, len(quality.Indicators))
	for i, in := range quality.Indicators {
		fixes[i] = &Fix{IndicatorSummary: quality.IndicatorSummary{Metric: in.Metric, Dimension: in.Dimension, Max: in.Points},
			PerDataset: !in.PerDistribution}
	}
	err := scoreSource(ctx, st, sourceID, out.Source, func(ds []*store.DatasetQuality, scores []quality.Score) {
		for j, d := range ds {
			var title string
			for i, is := range scores[j].Indicators {
				gain := float64(is.Max) - is.Points
				if gain <= 1e-9 || i >= len(fixes) {
					continue
				}
				f := fixes[i]
				f.Datasets++
				f.Gain += gain
				if is.Unknown > 0 && is.Met+is.Unknown == is.Of {
					f.Unchecked++
				}
				if examples > 0 {
					if title == "" {
						title = recordTitle(d.DCAT)
					}
					f.Examples = append(f.Examples, FixDataset{ID: d.ID, Slug: d.Slug, Title: title, Gain: gain})
					if len(f.Examples) >= 4*examples {
						f.Examples = bestExamples(f.Examples, examples)
					}
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for i, f := range fixes {
		if f.Datasets == 0 {
			continue
		}
		f.IndicatorSummary = out.Source.Indicators[i]
		f.Examples = bestExamples(f.Examples, examples)
		out.Fixes = append(out.Fixes, f)
	}
	slices.SortStableFunc(out.Fixes, func(a, b *Fix) int { return cmp.Compare(b.Gain, a.Gain) })
	return out, nil
}

// bestExamples sorts ex by gain (largest first, then by slug) and keeps the first n.
func bestExamples(ex []FixDataset, n int) []FixDataset {
	slices.SortFunc(ex, func(a, b FixDataset) int { return cmp.Or(cmp.Compare(b.Gain, a.Gain), cmp.Compare(a.Slug, b.Slug)) })
	return ex[:min(len(ex), max(n, 0))]
}

// recordTitle is a DCAT-US record's title, "" when it has none as a string.
func recordTitle(dcat json.RawMessage) string {
	var r struct {
		Title any `json:"title"`
	}
	if json.Unmarshal(dcat, &r) != nil {
		return ""
	}
	s, _ := r.Title.(string)
	return s
}
