package notify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// TestComposeQuality: the report gives the source's score and rating, its change since the
// previous job (or that it is the first), and the newly broken links, at most
// MaxDuplicateLines of them with where to see the rest; no quality, no section.
func TestComposeQuality(t *testing.T) {
	t.Parallel()
	_, body := Compose(Config{}, testSource(harvest.NotifyAlways), cleanJob())
	require.NotContains(t, body, "Metadata quality")

	job := cleanJob()
	prev := 174.5
	job.Quality = &Quality{Score: 165.4545, Rating: "Sufficient", Datasets: 11, Previous: &prev,
		PreviousRating: "Sufficient", LinksBroken: 3, NewlyBrokenCount: 2, NewlyBroken: []BrokenLink{
			{URL: "https://files.example.gov/a.csv", Status: 404, Datasets: 1},
			{URL: "https://gone.example.gov/b\r\nBcc: x@evil.example", Error: "dns", Datasets: 2},
		}}
	_, body = Compose(Config{}, testSource(harvest.NotifyAlways), job)
	require.Contains(t, body, "\nMetadata quality: 165.5 of 405 points (Sufficient), the mean of 11 datasets; "+
		"-9.0 points since the previous job (174.5, Sufficient).\n"+
		"Broken links: 3, 2 newly broken since the previous job:\n"+
		"  https://files.example.gov/a.csv: HTTP 404 (1 dataset)\n"+
		"  https://gone.example.gov/b Bcc: x@evil.example: dns (2 datasets)\n")

	job.Quality.Previous, job.Quality.NewlyBroken, job.Quality.NewlyBrokenCount = nil, nil, 0
	_, body = Compose(Config{}, testSource(harvest.NotifyAlways), job)
	require.Contains(t, body, "; the first score recorded for this source.\nBroken links: 3, none newly broken.\n")

	job.Quality.Previous = &job.Quality.Score
	for i := range MaxDuplicateLines + 5 {
		job.Quality.NewlyBroken = append(job.Quality.NewlyBroken, BrokenLink{URL: fmt.Sprintf("https://x.example.gov/%d", i), Status: 500})
	}
	job.Quality.NewlyBrokenCount = 40
	_, body = Compose(Config{BaseURL: "https://h.example.gov/"}, testSource(harvest.NotifyAlways), job)
	require.Contains(t, body, "; unchanged since the previous job.\n")
	require.Equal(t, MaxDuplicateLines, strings.Count(body, ": HTTP 500 (0 datasets)\n"))
	require.Contains(t, body, "  … and 30 more: see the source's quality page, or "+
		"https://h.example.gov/api/v1/harvest_sources/"+testSource(harvest.NotifyAlways).ID+"/broken_links\n")
}
