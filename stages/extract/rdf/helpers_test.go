package rdf

// The tests' EXTRACT runs: extracttest's, with this family's lister (withLister).

import (
	"testing"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/extract/extracttest"
	"github.com/harvester-dev/harvester/store"
)

// extractRun is an extracttest.Run, as these tests read it.
type extractRun struct {
	*extracttest.Run
	st   store.Store
	msgs map[string][]*harvest.Message
	err  error
}

func wrap(r *extracttest.Run) *extractRun {
	return &extractRun{Run: r, st: r.St, msgs: r.Msgs, err: r.Err}
}

func (r *extractRun) records(t *testing.T) []harvest.Record { return r.Records(t) }

func (r *extractRun) recordErrors(t *testing.T) map[string]harvest.Settled { return r.RecordErrors(t) }

func (r *extractRun) jobErrors(t *testing.T) []*store.JobError { return r.JobErrors(t) }

func (r *extractRun) unseen(t testing.TB) []string { return r.Unseen(t) }

func openSQLite(t testing.TB) store.Store { return extracttest.OpenSQLite(t) }

func identifiers(recs []harvest.Record) []string { return extracttest.Identifiers(recs) }

func runExtractAs(t testing.TB, st store.Store, file string, typ harvest.SourceType, schema harvest.SchemaType,
	doc []byte, live []string, opts ...extract.Option) *extractRun {
	t.Helper()
	return wrap(extracttest.RunExtractAs(t, st, file, typ, schema, doc, live, withLister(opts)...))
}

// newHandler is extract.New with this family's lister.
func newHandler(st extract.Store, pub harvest.Publisher, fc fetch.Config, opts ...extract.Option) *extract.Handler {
	return extract.New(st, pub, fc, withLister(opts)...)
}

// withLister is opts with this family's lister registered last (after any WithConfig).
func withLister(opts []extract.Option) []extract.Option {
	return append(opts, extract.WithListers(map[harvest.Family]extract.Lister{harvest.FamilyRDF: Lister{}}))
}
