package rdf

import (
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/rdf"
)

// maxRDFWarnings caps the warning rows an rdf source's lenient reading gives a job; the rest
// are counted in one more row.
const maxRDFWarnings = 100

// rdfWarnings collects what the RDF parser read leniently on an rdf source's pages
// (rdf.Options.Warn: RDF/XML's misused rdf: names, bad or repeated rdf:ID; a '#' right after
// a Turtle prefixed name, which starts a comment) as
// RDFSyntaxWarning rows of severity warning. The first dataset record listed carries them all
// (rdfRecord), as record warnings do (harvest.Record.Warnings): a problem of the document is
// not one dataset's, and this way each is reported once. A job that lists no dataset record,
// or whose first record is unchanged since the last harvest (COMPARE writes nothing for it),
// shows none.
type rdfWarnings struct {
	rows    []harvest.RecordError
	dropped int
}

// on is the rdf.Options.Warn of one page.
func (w *rdfWarnings) on(page string, f rdf.Format) func(rdf.Warning) {
	what := "does not follow the RDF/XML grammar and was read leniently"
	if f != rdf.RDFXML {
		what = "was read with a warning"
	}
	return func(x rdf.Warning) {
		if len(w.rows) >= maxRDFWarnings {
			w.dropped++
			return
		}
		w.rows = append(w.rows, harvest.RecordError{Type: harvest.TypeRDFSyntaxWarning, Severity: harvest.SeverityWarning,
			Message: fmt.Sprintf("%s %s: %s", page, what, x)})
	}
}

// take returns the warnings not given to a record yet, with a last row counting those left out.
func (w *rdfWarnings) take() []harvest.RecordError {
	if w == nil {
		return nil
	}
	rows := w.rows
	if w.dropped > 0 {
		rows = append(rows, harvest.RecordError{Type: harvest.TypeRDFSyntaxWarning, Severity: harvest.SeverityWarning,
			Message: fmt.Sprintf("%d more RDF syntax warnings not listed (at most %d are)", w.dropped, maxRDFWarnings)})
	}
	w.rows, w.dropped = nil, 0
	return rows
}
