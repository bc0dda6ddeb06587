package extract_test

// The tests' EXTRACT runs: extracttest's, with the document family's lister (withLister).

import (
	"context"
	"testing"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/extract/document"
	"github.com/harvester-dev/harvester/stages/extract/extracttest"
	"github.com/harvester-dev/harvester/store"
)

// extractRun is an extracttest.Run, as these tests read it.
type extractRun struct {
	*extracttest.Run
	err             error
	unseenAtListing []string
}

func wrap(r *extracttest.Run) *extractRun {
	return &extractRun{Run: r, err: r.Err, unseenAtListing: r.UnseenAtListing}
}

func (r *extractRun) records(t *testing.T) []harvest.Record { return r.Records(t) }

func (r *extractRun) listed(t *testing.T) int { return r.Listed(t) }

func openSQLite(t testing.TB) store.Store { return extracttest.OpenSQLite(t) }

func asRunner(ctx context.Context, st store.Store, pub harvest.Publisher, err error) error {
	return extracttest.AsRunner(ctx, st, pub, err)
}

func runExtractOn(t *testing.T, st store.Store, doc []byte, live []string, opts ...extract.Option) *extractRun {
	t.Helper()
	return wrap(extracttest.RunExtractOn(t, st, doc, live, withLister(opts)...))
}

// newHandler is extract.New with the document family's lister.
func newHandler(st extract.Store, pub harvest.Publisher, fc fetch.Config, opts ...extract.Option) *extract.Handler {
	return extract.New(st, pub, fc, withLister(opts)...)
}

// withLister is opts with the document family's lister registered last (after any WithConfig).
func withLister(opts []extract.Option) []extract.Option {
	return append(opts, extract.WithListers(map[harvest.Family]extract.Lister{harvest.FamilyDocument: document.Lister{}}))
}

// redeliver runs EXTRACT again on r's job (extracttest.Redeliver), with the document doc when
// not nil.
func redeliver(t *testing.T, st store.Store, r *extractRun, doc []byte) *extractRun {
	t.Helper()
	return wrap(extracttest.Redeliver(t, st, r.Run, doc, withLister(nil)...))
}
