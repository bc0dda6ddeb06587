package h2import

import (
	"fmt"

	"github.com/harvester-dev/harvester/store"
)

// Tally counts what an import did to one kind of row.
type Tally struct {
	Created   int `json:"created"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
}

// Rows is how many rows the import read and wrote of this kind.
func (t Tally) Rows() int { return t.Created + t.Changed + t.Unchanged }

func (t *Tally) add(r store.ImportResult) {
	switch r {
	case store.ImportCreated:
		t.Created++
	case store.ImportChanged:
		t.Changed++
	default:
		t.Unchanged++
	}
}

func (t *Tally) merge(o Tally) {
	t.Created, t.Changed, t.Unchanged = t.Created+o.Created, t.Changed+o.Changed, t.Unchanged+o.Unchanged
}

// Report is what an import did.
type Report struct {
	Organizations Tally `json:"organizations"`
	Sources       Tally `json:"sources"`
	Jobs          Tally `json:"jobs"`
	Records       Tally `json:"records"`
	Datasets      Tally `json:"datasets"`
	// NoDataset counts the current H2.0 records not imported because they have no dataset row
	// (or their dataset row points at another record): the first harvest adds them.
	NoDataset int `json:"no_dataset"`
	// Errors are the rows that were not imported, one line each naming the H2.0 table, the
	// row's id and why (a rule of the API it breaks, or a conflict with a row of the store),
	// e.g. `harvest_source 0b6c…: url: "/etc/passwd" is not an absolute http(s) URL; its
	// jobs, records and datasets are not imported`. At most maxErrors are kept; ErrorCount
	// counts them all. The import goes on past them.
	Errors     []string `json:"errors"`
	ErrorCount int      `json:"error_count"`
}

const maxErrors = 100

// refuse reports that the row id of the H2.0 table was not imported, and why.
func (r *Report) refuse(table, id, format string, args ...any) {
	r.ErrorCount++
	if len(r.Errors) < maxErrors {
		r.Errors = append(r.Errors, fmt.Sprintf("%s %s: %s", table, id, fmt.Sprintf(format, args...)))
	}
}

// merge adds what o counted (one source's committed transaction) to r.
func (r *Report) merge(o *Report) {
	r.Organizations.merge(o.Organizations)
	r.Sources.merge(o.Sources)
	r.Jobs.merge(o.Jobs)
	r.Records.merge(o.Records)
	r.Datasets.merge(o.Datasets)
	r.NoDataset += o.NoDataset
	r.ErrorCount += o.ErrorCount
	for _, e := range o.Errors {
		if len(r.Errors) < maxErrors {
			r.Errors = append(r.Errors, e)
		}
	}
}

// Changed is the number of rows the import created or updated: 0 when it ran again over an
// unchanged H2.0 database.
func (r *Report) Changed() int {
	n := 0
	for _, t := range []Tally{r.Organizations, r.Sources, r.Jobs, r.Records, r.Datasets} {
		n += t.Created + t.Changed
	}
	return n
}

// String is the report's summary line, e.g. "imported 1 organizations, 1 sources, 1696
// datasets; 0 changed (0 created, 0 updated, 3395 unchanged rows)".
func (r *Report) String() string {
	var created, updated, unchanged int
	for _, t := range []Tally{r.Organizations, r.Sources, r.Jobs, r.Records, r.Datasets} {
		created, updated, unchanged = created+t.Created, updated+t.Changed, unchanged+t.Unchanged
	}
	s := fmt.Sprintf("imported %d organizations, %d sources, %d datasets; %d changed (%d created, %d updated, %d unchanged rows)",
		r.Organizations.Rows(), r.Sources.Rows(), r.Datasets.Rows(), created+updated, created, updated, unchanged)
	if r.NoDataset > 0 {
		s += fmt.Sprintf("; %d current records without a dataset row not imported (the first harvest adds them)", r.NoDataset)
	}
	if r.ErrorCount > 0 {
		s += fmt.Sprintf("; %d rows not imported", r.ErrorCount)
	}
	return s
}
