package notify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// dupJob is a job that found n new cross-source duplicates, of which the first listed ones
// alternate: live here, held here.
func dupJob(n, listed int) Job {
	j := updatedJob()
	j.NewDuplicates = n
	for i := range listed {
		j.Duplicates = append(j.Duplicates, Duplicate{Match: "identifier", Key: fmt.Sprintf("cdc-%03d", i),
			OtherSource: "HHS data.json", OtherDataset: fmt.Sprintf("hhs-dataset-%03d", i), Live: i%2 == 0})
	}
	return j
}

// The report email of a job that found new cross-source duplicates says how many, and names
// each pair's key, the other source and which dataset is live, through a real SMTP exchange.
func TestJobFinishedMentionsNewDuplicates(t *testing.T) {
	t.Parallel()
	ts, m := plainServer(t)
	n, err := m.JobFinished(t.Context(), testSource(harvest.NotifyAlways, "alice@example.gov"), dupJob(2, 2))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	msgs := ts.Messages()
	require.Len(t, msgs, 1)
	_, body := msgs[0].Parse(t)
	for _, line := range []string{
		"Cross-source duplicates: this job found 2 new datasets that another source publishes too:\n",
		`  identifier "cdc-000": also in "HHS data.json" (dataset hhs-dataset-000); live here; held in "HHS data.json"` + "\n",
		`  identifier "cdc-001": also in "HHS data.json" (dataset hhs-dataset-001); held here; live in "HHS data.json"` + "\n",
	} {
		require.Contains(t, body, line)
	}
	require.NotContains(t, body, "more:")
	require.Less(t, strings.Index(body, countLine("Validated", 10)), strings.Index(body, "Cross-source duplicates:"),
		"after the counts")
}

// At most MaxDuplicateLines pairs are listed; the rest are counted, with where to see them all.
func TestComposeCapsDuplicateLines(t *testing.T) {
	t.Parallel()
	job := dupJob(25, 12)
	_, body := Compose(Config{BaseURL: "https://harvest.example.gov/"}, testSource(harvest.NotifyAlways), job)
	require.Contains(t, body, "this job found 25 new datasets")
	require.Equal(t, MaxDuplicateLines, strings.Count(body, `: also in "HHS data.json"`))
	require.Contains(t, body, "cdc-009")
	require.NotContains(t, body, "cdc-010")
	require.Contains(t, body, "  … and 15 more: see the source's page, or "+
		"https://harvest.example.gov/api/v1/cross_source_duplicates?job_id="+job.ID+"\n")
}

// A job without new duplicates has no such section; one new duplicate reads in the singular;
// a hostile key or source name stays on its line.
func TestComposeDuplicatesSection(t *testing.T) {
	t.Parallel()
	_, body := Compose(Config{}, testSource(harvest.NotifyAlways), updatedJob())
	require.NotContains(t, body, "Cross-source")

	job := updatedJob()
	job.NewDuplicates = 1
	job.Duplicates = []Duplicate{{Match: "landing_page", Key: "https://a.example.gov/x\r\nBcc: evil@example.com",
		OtherSource: "Agg\nregator", Live: false}}
	_, body = Compose(Config{}, testSource(harvest.NotifyAlways), job)
	require.Contains(t, body, "this job found 1 new dataset that another source publishes too:\n")
	require.Contains(t, body, `  landing_page "https://a.example.gov/x Bcc: evil@example.com": also in "Agg regator"; `+
		`held here; live in "Agg regator"`+"\n")
}

// The report says how many of the source's datasets are held and which, each with the source and
// dataset that is live instead, at most MaxDuplicateLines of them, with where to see them all;
// one held dataset "is"; none, no section.
func TestComposeHeldDatasets(t *testing.T) {
	t.Parallel()
	job := updatedJob()
	job.Counts.Held = 12
	for i := range 11 {
		job.Held = append(job.Held, Duplicate{Match: "identifier", Key: fmt.Sprintf("hhs-%03d", i),
			Dataset: fmt.Sprintf("hhs-%03d", i), OtherSource: "CDC data.json", OtherDataset: fmt.Sprintf("cdc-dataset-%03d", i)})
	}
	src := testSource(harvest.NotifyAlways)
	_, body := Compose(Config{BaseURL: "https://harvest.example.gov/"}, src, job)
	require.Contains(t, body, countLine("Held", 12))
	require.Contains(t, body, "\nHeld: 12 datasets of this source are held as cross-source duplicates (harvested, "+
		"not published: another source's copy is live):\n")
	require.Contains(t, body, `  "hhs-000": live in "CDC data.json" (dataset cdc-dataset-000), same identifier "hhs-000"`+"\n")
	require.Equal(t, MaxDuplicateLines, strings.Count(body, `: live in "CDC data.json"`))
	require.Contains(t, body, "  … and 2 more: see the source's page, or "+
		"https://harvest.example.gov/api/v1/cross_source_duplicates?source_id="+src.ID+"\n")

	job.Counts.Held, job.Held = 1, job.Held[:1]
	_, body = Compose(Config{}, src, job)
	require.Contains(t, body, "\nHeld: 1 dataset of this source is held as cross-source duplicates")

	job.Counts.Held, job.Held = 0, nil
	_, body = Compose(Config{}, src, job)
	require.NotContains(t, body, "Held")
}
