package quality

// Rating is the MQA's band of a score (edp-scoring-skos.rdf).
type Rating string

// The ratings. Sufficient is the band piveau's vocabulary calls "Enough" (scoring#enough).
const (
	Excellent  Rating = "Excellent"  // more than 350 points
	Good       Rating = "Good"       // 221–350
	Sufficient Rating = "Sufficient" // 121–220
	Bad        Rating = "Bad"        // 0–120
)

// RatingOf returns the band of points (0–405; a fractional score is rated as it is, so 350.5 is
// Excellent and 120.5 Sufficient).
func RatingOf(points float64) Rating {
	switch {
	case points > 350:
		return Excellent
	case points > 220:
		return Good
	case points > 120:
		return Sufficient
	}
	return Bad
}

// IRI returns the rating's concept in piveau's scoring scheme, e.g.
// https://piveau.eu/ns/scoring#excellent.
func (r Rating) IRI() string {
	switch r {
	case Excellent:
		return "https://piveau.eu/ns/scoring#excellent"
	case Good:
		return "https://piveau.eu/ns/scoring#good"
	case Sufficient:
		return "https://piveau.eu/ns/scoring#enough"
	case Bad:
		return "https://piveau.eu/ns/scoring#bad"
	}
	return ""
}
