package compare_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/wmbridge"
	"github.com/harvester-dev/harvester/stages/compare"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// BenchmarkHandleRecord is COMPARE alone on Postgres: b.N records of one job handled in
// batches of `batch` (HandleBatch) by two concurrent callers, as the router's batch workers
// call it (a batch of 1 is HandleRecord's cost). "create" records are
// new (lookup and insert); "unchanged" ones match the newest record of an earlier job (lookup
// only). It reports records/s; run it with a fixed -benchtime (e.g. 5000x) so that the
// setup, which settles every record of the earlier job, stays bounded.
func BenchmarkHandleRecord(b *testing.B) {
	for _, unchanged := range []bool{false, true} {
		for _, batch := range []int{1, 64} {
			name := fmt.Sprintf("create/batch=%d", batch)
			if unchanged {
				name = fmt.Sprintf("unchanged/batch=%d", batch)
			}
			b.Run(name, func(b *testing.B) { benchmarkHandleRecord(b, batch, unchanged) })
		}
	}
}

func benchmarkHandleRecord(b *testing.B, batch int, unchanged bool) {
	ctx := context.Background()
	st := dbtest.Store(b)
	pubsub := gochannel.NewGoChannel(gochannel.Config{}, watermill.NopLogger{})
	b.Cleanup(func() { _ = pubsub.Close() })
	h := compare.New(st, wmbridge.Publisher{Publisher: pubsub}, 0)
	if c, ok := any(h).(interface{ Close() }); ok {
		b.Cleanup(c.Close)
	}
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: "https://example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(b, err)
	body := func(i int) string { return fmt.Sprintf(`{"identifier":"r%d","title":"Record %d"}`, i, i) }
	if unchanged { // an earlier job harvested every record
		old := newJob(b, st, src.ID)
		for i := range b.N {
			m := recordMessage(b, old, src.ID, i, body(i))
			_, err := h.HandleRecord(m)
			require.NoError(b, err)
			id := fmt.Sprintf("r%d", i)
			_, _, err = st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: old.ID, Key: harvest.IdentifierKey(id),
				Identifier: id, RecordID: harvest.RecordID(old.ID, id), Outcome: harvest.OutcomeAdded,
				Status: harvest.RecordSuccess})
			require.NoError(b, err)
		}
		_, err = st.JobFail(ctx, &store.JobFailParams{JobID: old.ID, Type: "Bench", Message: "end"})
		require.NoError(b, err)
	}
	job := newJob(b, st, src.ID)
	msgs := make([]*harvest.Message, b.N)
	for i := range msgs {
		msgs[i] = recordMessage(b, job, src.ID, i, body(i))
	}
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range 2 {
		wg.Go(func() {
			for lo := next.Add(int64(batch)) - int64(batch); lo < int64(len(msgs)); lo = next.Add(int64(batch)) - int64(batch) {
				for _, r := range h.HandleBatch(ctx, msgs[lo:min(lo+int64(batch), int64(len(msgs)))]) {
					if r.Err != nil {
						failed.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	require.Zero(b, failed.Load())
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func newJob(b *testing.B, st store.Store, sourceID string) *store.HarvestJob {
	job, err := st.JobInsert(context.Background(), &store.JobInsertParams{SourceID: sourceID, JobType: harvest.JobHarvest})
	require.NoError(b, err)
	return job
}

func recordMessage(b *testing.B, job *store.HarvestJob, sourceID string, i int, body string) *harvest.Message {
	id := fmt.Sprintf("r%d", i)
	m, err := harvest.RecordMessage(harvest.SubjectCompare, &harvest.Record{JobID: job.ID, SourceID: sourceID,
		JobType: job.JobType, SchemaType: harvest.SchemaDCATUS11Federal, RecordID: harvest.RecordID(job.ID, id),
		Identifier: id, Body: harvest.RawText(body)})
	require.NoError(b, err)
	m.SetContext(context.Background())
	return m
}
