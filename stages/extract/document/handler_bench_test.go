package document

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/harvester-dev/harvester/internal/cputime"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/store"
)

// discard is a Publisher that drops every message: the benchmark times EXTRACT, not the bus.
type discard struct{}

func (discard) Publish(string, ...*harvest.Message) error { return nil }
func (discard) Close() error                              { return nil }

// BenchmarkHandleDocument times one listing of a real catalog (VA, 1,856 records) through
// Handle on SQLite, per record: both walks, identification, the seen identifiers and the
// messages, with a publisher that drops them. cpu-µs/record is the CPU time of the process (GC
// included), which a machine busy with other work moves far less than the wall time.
func BenchmarkHandleDocument(b *testing.B) {
	path := corpustest.Path(b, "dcatus/agency-va-2025-07.data.json")
	records := 0
	f, err := os.Open(path)
	require.NoError(b, err)
	require.NoError(b, catalog.WalkCatalog(f, func(int, json.RawMessage) error { records++; return nil }))
	f.Close()

	ctx := context.Background()
	st := openSQLite(b)
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: path, SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(b, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(b, err)
	m, err := harvest.NewMessage(harvest.SubjectExtract, &harvest.Job{V: harvest.Version, JobID: job.ID,
		SourceID: src.ID, JobType: harvest.JobHarvest, SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal, URL: path})
	require.NoError(b, err)
	m.SetContext(ctx)
	h := newHandler(st, discard{}, fetch.Config{}, extract.WithConfig(extract.Config{JobWindow: -1})) // nothing settles: unpaced
	b.ReportAllocs()
	cpu := cputime.Self()
	for b.Loop() {
		require.NoError(b, h.Handle(m))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*records)/1e3, "µs/record")
	b.ReportMetric(float64(cputime.Self()-cpu)/float64(b.N*records)/1e3, "cpu-µs/record")
}
