package notify

import (
	"cmp"
	"fmt"
	"net/url"
	"strings"
)

// MaxDuplicateLines is how many of a job's new cross-source duplicates the report lists; it
// says how many more there are and where to see them all.
const MaxDuplicateLines = 10

// Duplicate is one cross-source duplicate a job found first: a dataset of the job's source
// that another source publishes too (the same identifier, landingPage or downloadURL set).
// One of the two is live in the catalog, the other held (harvested, linked, not published).
type Duplicate struct {
	// Match is what the two share, as the store names it (e.g. "identifier"), and Key its
	// value (the identifier, the landingPage URL, …).
	Match, Key string
	// OtherSource is the other source's name, OtherDataset the slug (or identifier) of its
	// dataset.
	OtherSource, OtherDataset string
	// Dataset is the identifier of the job's source's dataset (Job.Held); "" in
	// Job.Duplicates, whose lines name only the shared key.
	Dataset string
	// Live: the job's source's dataset is the live one (the other is held); false: the other
	// source's is live and the job's is held.
	Live bool
}

// writeDuplicates writes the report's cross-source duplicate section: nothing when the job
// found none; otherwise the count and up to MaxDuplicateLines lines, one per pair, each naming
// what is shared, the other source and which dataset is live; when there are more, where to
// list them all (the API's list of the job's pairs, under base when it is set).
func writeDuplicates(b *strings.Builder, base string, job Job) {
	n := max(job.NewDuplicates, len(job.Duplicates))
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "\nCross-source duplicates: this job found %s that another source publishes too:\n",
		plural(n, "new dataset", "new datasets"))
	shown := job.Duplicates[:min(len(job.Duplicates), MaxDuplicateLines)]
	for _, d := range shown {
		other := cmp.Or(oneLine(d.OtherSource), "(unnamed source)")
		live := fmt.Sprintf("live here; held in %q", other)
		if !d.Live {
			live = fmt.Sprintf("held here; live in %q", other)
		}
		line := fmt.Sprintf("  %s %q: also in %q", cmp.Or(oneLine(d.Match), "key"), oneLine(d.Key), other)
		if ds := oneLine(d.OtherDataset); ds != "" {
			line += fmt.Sprintf(" (dataset %s)", ds)
		}
		b.WriteString(truncate(line+"; "+live, maxFieldRunes) + "\n")
	}
	if more := n - len(shown); more > 0 {
		list := strings.TrimRight(oneLine(base), "/") + "/api/v1/cross_source_duplicates?job_id=" + url.QueryEscape(oneLine(job.ID))
		fmt.Fprintf(b, "  … and %d more: see the source's page, or %s\n", more, list)
	}
}

// writeHeld writes the report's section on the source's held datasets (Job.Held): nothing when
// the job counted none (Counts.Held); otherwise how many, up to MaxDuplicateLines lines, one
// per held dataset, each naming the source and dataset that is live instead and what they
// share, and, when there are more, where to list them all (the API's list of the source's
// pairs, under base when it is set).
func writeHeld(b *strings.Builder, base, sourceID string, job Job) {
	n := max(job.Counts.Held, len(job.Held))
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "\nHeld: %s of this source %s held as cross-source duplicates (harvested, not published: "+
		"another source's copy is live):\n", plural(n, "dataset", "datasets"), isAre(n))
	shown := job.Held[:min(len(job.Held), MaxDuplicateLines)]
	for _, d := range shown {
		line := fmt.Sprintf("  %q: live in %q", oneLine(d.Dataset), cmp.Or(oneLine(d.OtherSource), "(unnamed source)"))
		if ds := oneLine(d.OtherDataset); ds != "" {
			line += fmt.Sprintf(" (dataset %s)", ds)
		}
		line += fmt.Sprintf(", same %s %q", cmp.Or(oneLine(d.Match), "key"), oneLine(d.Key))
		b.WriteString(truncate(line, maxFieldRunes) + "\n")
	}
	if more := n - len(shown); more > 0 {
		list := strings.TrimRight(oneLine(base), "/") + "/api/v1/cross_source_duplicates?source_id=" +
			url.QueryEscape(oneLine(sourceID))
		fmt.Fprintf(b, "  … and %d more: see the source's page, or %s\n", more, list)
	}
}

// isAre is "is" for one, "are" otherwise.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
