package portal

// The tests' EXTRACT runs: extracttest's, with this family's lister (withLister).

import (
	"context"
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
	st              store.Store
	job             *store.HarvestJob
	msgs            map[string][]*harvest.Message
	err             error
	unseenAtListing []string
}

func wrap(r *extracttest.Run) *extractRun {
	return &extractRun{Run: r, st: r.St, job: r.Job, msgs: r.Msgs, err: r.Err, unseenAtListing: r.UnseenAtListing}
}

func (r *extractRun) records(t *testing.T) []harvest.Record { return r.Records(t) }

func (r *extractRun) settled(t *testing.T) []harvest.Settled { return r.Settled(t) }

func (r *extractRun) listed(t *testing.T) int { return r.Listed(t) }

func (r *extractRun) recordErrors(t *testing.T) map[string]harvest.Settled { return r.RecordErrors(t) }

func (r *extractRun) jobErrors(t *testing.T) []*store.JobError { return r.JobErrors(t) }

func openSQLite(t testing.TB) store.Store { return extracttest.OpenSQLite(t) }

func identifiers(recs []harvest.Record) []string { return extracttest.Identifiers(recs) }

func asRunner(ctx context.Context, st store.Store, pub harvest.Publisher, err error) error {
	return extracttest.AsRunner(ctx, st, pub, err)
}

func handleJob(t testing.TB, st store.Store, srcID string, live []string, msg harvest.Job, fc fetch.Config,
	opts ...extract.Option) *extractRun {
	t.Helper()
	return wrap(extracttest.HandleJob(t, st, srcID, live, msg, fc, withLister(opts)...))
}

// newHandler is extract.New with this family's lister.
func newHandler(st extract.Store, pub harvest.Publisher, fc fetch.Config, opts ...extract.Option) *extract.Handler {
	return extract.New(st, pub, fc, withLister(opts)...)
}

// withLister is opts with this family's lister registered last (after any WithConfig).
func withLister(opts []extract.Option) []extract.Option {
	return append(opts, extract.WithListers(map[harvest.Family]extract.Lister{harvest.FamilyPortal: Lister{}}))
}
