package postgres_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

// BenchmarkDatasetUpsert compares SYNC's write of 1.8 KB datasets one statement each with
// DatasetUpsertBatch at the batch sizes SYNC's group commit makes (ns/op is per dataset).
func BenchmarkDatasetUpsert(b *testing.B) {
	st, err := postgres.Open(b.Context(), dbtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(b.Context()); err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "bench", URL: "https://example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	if err != nil {
		b.Fatal(err)
	}
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	if err != nil {
		b.Fatal(err)
	}
	pad := strings.Repeat("x", 1700)
	params := func(n int) []*store.DatasetUpsertParams {
		ps := make([]*store.DatasetUpsertParams, n)
		for i := range ps {
			id := uuid.NewString()
			dcat := fmt.Sprintf(`{"identifier": %q, "title": "T", "description": %q}`, id, pad)
			rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: harvest.RecordID(job.ID, id), JobID: job.ID,
				SourceID: src.ID, Identifier: id, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: dcat})
			if err != nil {
				b.Fatal(err)
			}
			ps[i] = &store.DatasetUpsertParams{SourceID: src.ID, Identifier: id, Slug: "ds-" + id, RecordID: rec.ID,
				DCAT: json.RawMessage(dcat)}
		}
		return ps
	}
	b.Run("single", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			p := params(1)[0]
			b.StartTimer()
			if _, err := st.DatasetUpsert(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, size := range []int{16, 100, 500} {
		b.Run(fmt.Sprintf("batch-%d", size), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				ps := params(size)
				b.StartTimer()
				if _, err := st.DatasetUpsertBatch(ctx, ps); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/dataset")
		})
	}
}
