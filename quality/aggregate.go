package quality

import (
	"cmp"
	"slices"
)

// Summary is the MQA of many datasets (a source's, an organization's, the catalog's), as an
// aggregate row will store it: the mean score and its rating (a catalogue's score is the mean of
// its datasets', reference/mqa/README.md), how many datasets fall in each rating, and per
// dimension and per indicator the mean points and their share of the maximum.
type Summary struct {
	Datasets   int                `json:"datasets"`
	Mean       float64            `json:"mean"`   // 0–405; 0 when there is no dataset
	Rating     Rating             `json:"rating"` // RatingOf(Mean)
	Ratings    map[Rating]int     `json:"ratings"`
	Dimensions []DimensionSummary `json:"dimensions"` // in the order of Dimensions
	Indicators []IndicatorSummary `json:"indicators"` // in the order of Indicators
}

// DimensionSummary is a dimension's mean points over the datasets; Share is Mean/Max (0–1).
type DimensionSummary struct {
	Dimension Dimension `json:"dimension"`
	Mean      float64   `json:"mean"`
	Max       int       `json:"max"`
	Share     float64   `json:"share"`
}

// IndicatorSummary is an indicator's mean points over the datasets; Share is Mean/Max (0–1), and
// Lost is Max−Mean, the points it costs the average dataset.
type IndicatorSummary struct {
	Metric    Metric    `json:"metric"`
	Dimension Dimension `json:"dimension"`
	Mean      float64   `json:"mean"`
	Max       int       `json:"max"`
	Share     float64   `json:"share"`
	Lost      float64   `json:"lost"`
}

// Aggregate summarizes scores (each as Assess returns it). No score gives a Summary with zero
// means and rating Bad.
func Aggregate(scores []Score) Summary {
	s := Summary{Datasets: len(scores), Ratings: map[Rating]int{}}
	dim := make([]float64, len(Dimensions))
	ind := make([]float64, len(Indicators))
	for _, sc := range scores {
		s.Mean += sc.Points
		s.Ratings[sc.Rating]++
		for i := range min(len(dim), len(sc.Dimensions)) {
			dim[i] += sc.Dimensions[i].Points
		}
		for i := range min(len(ind), len(sc.Indicators)) {
			ind[i] += sc.Indicators[i].Points
		}
	}
	n := float64(max(len(scores), 1))
	s.Mean /= n
	s.Rating = RatingOf(s.Mean)
	for i, d := range Dimensions {
		mx := 0
		for _, in := range Indicators {
			if in.Dimension == d {
				mx += in.Points
			}
		}
		mean := dim[i] / n
		s.Dimensions = append(s.Dimensions, DimensionSummary{Dimension: d, Mean: mean, Max: mx, Share: mean / float64(mx)})
	}
	for i, in := range Indicators {
		mean := ind[i] / n
		s.Indicators = append(s.Indicators, IndicatorSummary{Metric: in.Metric, Dimension: in.Dimension,
			Mean: mean, Max: in.Points, Share: mean / float64(in.Points), Lost: float64(in.Points) - mean})
	}
	return s
}

// Costliest returns the n indicators that cost the most points on average (largest Lost first;
// ties in the MQA's order), leaving out those that cost nothing.
func (s Summary) Costliest(n int) []IndicatorSummary {
	out := slices.Clone(s.Indicators)
	slices.SortStableFunc(out, func(a, b IndicatorSummary) int { return cmp.Compare(b.Lost, a.Lost) })
	out = slices.DeleteFunc(out, func(i IndicatorSummary) bool { return i.Lost <= 0 })
	return out[:min(n, len(out))]
}

// Combine is the Summary of the union of the datasets that summaries summarize (each as
// Aggregate returns it): each mean is the mean of theirs weighted by their Datasets, so that a
// caller can aggregate a catalog batch by batch without holding every Score. Combine of one
// summary is that summary; of none, Aggregate(nil).
func Combine(summaries ...Summary) Summary {
	out := Aggregate(nil)
	for _, s := range summaries {
		out.Datasets += s.Datasets
	}
	if out.Datasets == 0 {
		return out
	}
	for _, s := range summaries {
		w := float64(s.Datasets) / float64(out.Datasets)
		out.Mean += w * s.Mean
		for r, n := range s.Ratings {
			out.Ratings[r] += n
		}
		for i := range min(len(out.Dimensions), len(s.Dimensions)) {
			out.Dimensions[i].Mean += w * s.Dimensions[i].Mean
		}
		for i := range min(len(out.Indicators), len(s.Indicators)) {
			out.Indicators[i].Mean += w * s.Indicators[i].Mean
		}
	}
	out.Rating = RatingOf(out.Mean)
	for i := range out.Dimensions {
		d := &out.Dimensions[i]
		d.Share = d.Mean / float64(d.Max)
	}
	for i := range out.Indicators {
		in := &out.Indicators[i]
		in.Share, in.Lost = in.Mean/float64(in.Max), float64(in.Max)-in.Mean
	}
	return out
}
