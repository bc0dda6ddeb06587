package notify

import (
	"cmp"
	"fmt"
	"net/url"
	"strings"
)

// Quality is the metadata quality (the MQA score, docs/quality.md) of the job's source when
// the job ended, as the report gives it.
type Quality struct {
	Score    float64 // the mean score of the source's live datasets, 0–405
	Rating   string  // Excellent, Good, Sufficient or Bad
	Datasets int
	// Previous is the score the source's previous recorded job left, nil for the first;
	// PreviousRating its rating.
	Previous       *float64
	PreviousRating string
	// LinksBroken counts the source's distribution URLs whose latest check found them broken.
	LinksBroken int
	// NewlyBrokenCount counts the links that broke since the previous recorded job (all the
	// broken ones at the first), NewlyBroken lists some of them (the report shows at most
	// MaxDuplicateLines).
	NewlyBrokenCount int
	NewlyBroken      []BrokenLink
}

// BrokenLink is a distribution URL whose check found it broken: its HTTP status, or the error
// class when no answer came (dns, refused, timeout, …), and how many of the source's datasets
// use it.
type BrokenLink struct {
	URL      string
	Status   int
	Error    string
	Datasets int
}

// writeQuality writes the report's quality section: nothing when job.Quality is nil; otherwise
// the score and rating, how it moved since the previous recorded job (or that this is the
// first), the broken links and up to MaxDuplicateLines of those newly broken, and where to see
// them all (the API's list of the source's broken links, under base when it is set).
func writeQuality(b *strings.Builder, base, sourceID string, job Job) {
	q := job.Quality
	if q == nil {
		return
	}
	fmt.Fprintf(b, "\nMetadata quality: %.1f of 405 points (%s), the mean of %s", q.Score,
		cmp.Or(oneLine(q.Rating), "unrated"), plural(q.Datasets, "dataset", "datasets"))
	switch {
	case q.Previous == nil:
		b.WriteString("; the first score recorded for this source.\n")
	case fmt.Sprintf("%.1f", q.Score) == fmt.Sprintf("%.1f", *q.Previous):
		b.WriteString("; unchanged since the previous job.\n")
	default:
		fmt.Fprintf(b, "; %+.1f points since the previous job (%.1f, %s).\n", q.Score-*q.Previous, *q.Previous,
			cmp.Or(oneLine(q.PreviousRating), "unrated"))
	}
	n := max(q.NewlyBrokenCount, len(q.NewlyBroken))
	fmt.Fprintf(b, "Broken links: %d", q.LinksBroken)
	if n == 0 {
		b.WriteString(", none newly broken.\n")
		return
	}
	fmt.Fprintf(b, ", %s since the previous job:\n", plural(n, "newly broken", "newly broken"))
	shown := q.NewlyBroken[:min(len(q.NewlyBroken), MaxDuplicateLines)]
	for _, l := range shown {
		why := fmt.Sprintf("HTTP %d", l.Status)
		if l.Status == 0 || l.Error != "" {
			why = cmp.Or(oneLine(l.Error), "no answer")
		}
		b.WriteString(truncate(fmt.Sprintf("  %s: %s (%s)", oneLine(l.URL), why,
			plural(l.Datasets, "dataset", "datasets")), maxFieldRunes) + "\n")
	}
	if more := n - len(shown); more > 0 {
		list := strings.TrimRight(oneLine(base), "/") + "/api/v1/harvest_sources/" + url.PathEscape(oneLine(sourceID)) +
			"/broken_links"
		fmt.Fprintf(b, "  … and %d more: see the source's quality page, or %s\n", more, list)
	}
}
