package catalogsync_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/catalogsync"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// TestConcurrentUpserts: records synced in batches, several at once, whose titles repeat (so
// their slugs collide inside a batch and with those of a concurrent batch), all become datasets
// with unique slugs, and each record settles as its own.
func TestConcurrentUpserts(t *testing.T) {
	for name, open := range raceStores() {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			ctx := t.Context()
			require.NoError(t, st.Migrate(ctx))
			src, job := newSourceJob(t, st)
			h := catalogsync.New(st, nil)
			defer h.Close()

			const n = 120
			recs := make([]*harvest.Record, n)
			for i := range n {
				id := fmt.Sprintf("ds-%03d", i)
				body := fmt.Sprintf(`{"identifier": %q, "title": "Water Quality %d"}`, id, i%7)
				rec := &harvest.Record{JobID: job.ID, SourceID: src.ID, RecordID: harvest.RecordID(job.ID, id),
					JobType: harvest.JobHarvest, Identifier: id, Action: harvest.ActionCreate, Body: harvest.RawText(body)}
				_, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: rec.RecordID, JobID: job.ID, SourceID: src.ID,
					Identifier: id, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: body})
				require.NoError(t, err)
				recs[i] = rec
			}
			msgs := make([]*harvest.Message, n)
			for i, rec := range recs {
				m, err := harvest.RecordMessage(harvest.SubjectSync, rec)
				require.NoError(t, err)
				m.SetContext(ctx)
				msgs[i] = m
			}
			var wg sync.WaitGroup
			for lo := 0; lo < n; lo += 40 { // batches of 40, three at once
				wg.Go(func() {
					for j, r := range h.HandleBatch(ctx, msgs[lo:lo+40]) {
						i, rec := lo+j, recs[lo+j]
						if r.Err != nil {
							t.Errorf("record %d: %v", i, r.Err)
							continue
						}
						var s harvest.Settled
						if len(r.Out) != 1 || harvest.Decode(r.Out[0], &s) != nil || s.Identifier != rec.Identifier ||
							s.Outcome != harvest.OutcomeAdded {
							t.Errorf("record %d: settled %+v, want its own added outcome", i, s)
						}
					}
				})
			}
			wg.Wait()

			ds, err := st.DatasetList(ctx, &store.DatasetListParams{SourceID: src.ID})
			require.NoError(t, err)
			require.Len(t, ds, n)
			slugs := map[string]bool{}
			for _, d := range ds {
				require.False(t, slugs[d.Slug], "slug %s twice", d.Slug)
				slugs[d.Slug] = true
				require.True(t, strings.HasPrefix(d.Slug, "water-quality-"), d.Slug)
			}
		})
	}
}

// newSourceJob makes a document source and a harvest job of it in st (migrated).
func newSourceJob(t *testing.T, st store.Store) (*store.Source, *store.HarvestJob) {
	t.Helper()
	src, err := st.SourceEnsure(t.Context(), &store.SourceEnsureParams{Name: "s", URL: "https://example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(t.Context(), &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	return src, job
}

// handle hands rec to h as SYNC's message and returns h's output.
func handle(ctx context.Context, h *catalogsync.Handler, rec *harvest.Record) ([]*harvest.Message, error) {
	msg, err := harvest.RecordMessage(harvest.SubjectSync, rec)
	if err != nil {
		return nil, err
	}
	msg.SetContext(ctx)
	return h.Handle(msg)
}

// batchCounter is a real store that counts DatasetUpsertBatch calls and their failures.
type batchCounter struct {
	store.Store
	mu             sync.Mutex
	batches, fails int
}

func (b *batchCounter) DatasetUpsertBatch(ctx context.Context, ps []*store.DatasetUpsertParams) ([]*store.Dataset, error) {
	ds, err := b.Store.DatasetUpsertBatch(ctx, ps)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batches++
	if err != nil {
		b.fails++
	}
	return ds, err
}

// TestTakenSlugsStayBatched: new datasets whose titles are those of live datasets (every slug
// taken) go in whole batches, each taking a suffixed slug, instead of failing the batch and
// falling back to one statement a dataset.
func TestTakenSlugsStayBatched(t *testing.T) {
	st := &batchCounter{Store: dbtest.Store(t)}
	ctx := t.Context()
	require.NoError(t, st.Migrate(ctx))
	src, job := newSourceJob(t, st)
	h := catalogsync.New(st, nil)
	defer h.Close()
	long := strings.Repeat("Annual Water Quality Monitoring Station Report ", 3) // cut to MaxSlugLen: one slug
	syncRecords := func(from, n int) {
		var wg sync.WaitGroup
		for i := from; i < from+n; i++ {
			id := fmt.Sprintf("ds-%03d", i)
			body := fmt.Sprintf(`{"identifier": %q, "title": "%s %d"}`, id, long, i)
			rec := &harvest.Record{JobID: job.ID, SourceID: src.ID, RecordID: harvest.RecordID(job.ID, id),
				JobType: harvest.JobHarvest, Identifier: id, Action: harvest.ActionCreate, Body: harvest.RawText(body)}
			_, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: rec.RecordID, JobID: job.ID, SourceID: src.ID,
				Identifier: id, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: body})
			require.NoError(t, err)
			wg.Go(func() {
				if _, err := handle(ctx, h, rec); err != nil {
					t.Errorf("record %s: %v", id, err)
				}
			})
		}
		wg.Wait()
	}
	syncRecords(0, 1) // the slug every later title is cut to is taken
	st.mu.Lock()
	st.batches, st.fails = 0, 0
	st.mu.Unlock()
	syncRecords(1, 200)

	ds, err := st.DatasetList(ctx, &store.DatasetListParams{SourceID: src.ID})
	require.NoError(t, err)
	require.Len(t, ds, 201)
	slugs := map[string]bool{}
	for _, d := range ds {
		require.False(t, slugs[d.Slug], "slug %s twice", d.Slug)
		slugs[d.Slug] = true
		require.LessOrEqual(t, len(d.Slug), catalogsync.MaxSlugLen)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	require.Positive(t, st.batches, "the handlers' upserts went through the batch")
	require.Zero(t, st.fails, "no batch failed on a taken slug (of %d)", st.batches)
}
