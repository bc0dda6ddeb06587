package quality

import "encoding/json"

// Input is what a dataset is scored on.
type Input struct {
	// DCAT is the stored DCAT-US record (1.1 or 3.0; for a DCAT-AP source, the DCAT-US record
	// TRANSFORM made of it).
	DCAT json.RawMessage
	// Findings is true when the record carries any validation row: an error, or a warning (the
	// DCAT-US 3.0 content rules, SHACL findings that did not fail it). Profile compliance
	// (pv:dcatApCompliance) is its absence.
	Findings bool
	// Links holds the check results of the record's distribution URLs, keyed by the URL as the
	// record writes it (surrounding space trimmed). A URL missing here is LinkUnknown.
	Links map[string]LinkResult
}

// Score is one dataset's MQA score.
type Score struct {
	Points     float64          `json:"points"` // 0–405; fractional where a share of distributions counts
	Max        int              `json:"max"`    // MaxPoints
	Rating     Rating           `json:"rating"`
	Dimensions []DimensionScore `json:"dimensions"` // in the order of Dimensions
	Indicators []IndicatorScore `json:"indicators"` // in the order of Indicators
}

// DimensionScore is the points of one dimension: the sum of its indicators'.
type DimensionScore struct {
	Dimension Dimension `json:"dimension"`
	Points    float64   `json:"points"`
	Max       int       `json:"max"`
}

// IndicatorScore is the points of one indicator. For a dataset-level indicator Of is 1 and Met 0
// or 1; for a per-distribution one Of is the number of distributions and Met how many meet it
// (Points = Max × Met / Of; 0 when there is no distribution). Unknown counts the distributions
// whose URL for a status-code indicator has no check result yet (they score nothing).
type IndicatorScore struct {
	Metric    Metric    `json:"metric"`
	Dimension Dimension `json:"dimension"`
	Points    float64   `json:"points"`
	Max       int       `json:"max"`
	Met       int       `json:"met"`
	Of        int       `json:"of"`
	Unknown   int       `json:"unknown,omitempty"`
}

// Assess scores a dataset by the MQA (docs/quality.md maps each indicator to the DCAT-US fields
// it reads). It never fails and never panics on a record's shape: a record that is not a JSON
// object scores only what Input says beside it (compliance).
func Assess(in Input) Score {
	r := readRecord(in.DCAT)
	judge := judge{r: r, in: in}
	s := Score{Max: MaxPoints, Indicators: make([]IndicatorScore, 0, len(Indicators))}
	dims := map[Dimension]*DimensionScore{}
	for _, d := range Dimensions {
		s.Dimensions = append(s.Dimensions, DimensionScore{Dimension: d})
	}
	for i := range s.Dimensions {
		dims[s.Dimensions[i].Dimension] = &s.Dimensions[i]
	}
	for _, ind := range Indicators {
		is := IndicatorScore{Metric: ind.Metric, Dimension: ind.Dimension, Max: ind.Points}
		if ind.PerDistribution && !judge.datasetWide(ind.Metric) {
			is.Of = len(r.distributions)
			for _, dist := range r.distributions {
				switch judge.distribution(ind.Metric, dist) {
				case met:
					is.Met++
				case unknown:
					is.Unknown++
				}
			}
		} else {
			is.Of = 1
			if judge.dataset(ind.Metric) {
				is.Met = 1
			}
		}
		if is.Of > 0 {
			is.Points = float64(ind.Points) * float64(is.Met) / float64(is.Of)
		}
		s.Indicators = append(s.Indicators, is)
		d := dims[ind.Dimension]
		d.Points += is.Points
		d.Max += ind.Points
		s.Points += is.Points
	}
	s.Rating = RatingOf(s.Points)
	return s
}

// Indicator returns the score of metric m, and false when s has none.
func (s Score) Indicator(m Metric) (IndicatorScore, bool) {
	for _, is := range s.Indicators {
		if is.Metric == m {
			return is, true
		}
	}
	return IndicatorScore{}, false
}
