package quality

import "encoding/json"

// Input is what a dataset is scored on.
type Input struct {
	// DCAT is the stored DCAT-US record (1.1 or 3.0; for a DCAT-AP source, the DCAT-US record
	// TRANSFORM made of it).
	DCAT json.RawMessage
	// Graph is the record graph of a DCAT-AP dataset as harvested (canonical N-Quads, the
	// record's source_raw); nil for any other record. When it parses and describes Identifier,
	// every indicator reads the graph and DCAT is not read; else DCAT is scored.
	Graph []byte
	// Identifier is the IRI of the dataset Graph describes (the record's identifier).
	Identifier string
	// Findings is true when the record carries a validation row that counts against compliance:
	// for a DCAT-US record any row, an error or a warning (the DCAT-US 3.0 content rules); for a
	// DCAT-AP record a SHACL finding. Profile compliance (pv:dcatApCompliance) is its absence.
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

// Assess scores a dataset by the MQA: a DCAT-AP record on its graph (Input.Graph), any other
// on its DCAT-US record (docs/quality.md maps each indicator to the DCAT-US fields and to the
// DCAT-AP properties it reads), both by the one table of Indicators. It never fails and never
// panics on a record's shape: a record that is not a JSON object scores only what Input says
// beside it (compliance), and a graph that does not parse or does not describe Identifier is
// passed over for DCAT.
func Assess(in Input) Score {
	var j judged = judge{r: readRecord(in.DCAT), in: in}
	if len(in.Graph) > 0 {
		if g, ok := readGraph(in); ok {
			j = g
		}
	}
	return assess(j)
}

// judged is one dataset as the indicators read it: a DCAT-US record (judge) or a DCAT-AP record
// graph (graphJudge).
type judged interface {
	// dataset decides a dataset-level indicator (and a per-distribution one that datasetWide
	// says the dataset meets for all its distributions).
	dataset(m Metric) bool
	// datasetWide reports whether the dataset itself meets per-distribution indicator m for
	// every distribution (its own issued or modified date).
	datasetWide(m Metric) bool
	// distributions is how many distributions the dataset has.
	distributions() int
	// distribution decides per-distribution indicator m for the i-th distribution.
	distribution(m Metric, i int) verdict
}

// assess scores j by Indicators.
func assess(j judged) Score {
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
		if ind.PerDistribution && !j.datasetWide(ind.Metric) {
			is.Of = j.distributions()
			for i := range is.Of {
				switch j.distribution(ind.Metric, i) {
				case met:
					is.Met++
				case unknown:
					is.Unknown++
				}
			}
		} else {
			is.Of = 1
			if j.dataset(ind.Metric) {
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
