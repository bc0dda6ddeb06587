package extract_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/store"
)

// countingPublisher counts what is published and drops it.
type countingPublisher struct{ listings int }

func (p *countingPublisher) Publish(subject string, msgs ...*harvest.Message) error {
	if subject == harvest.SubjectListing {
		p.listings += len(msgs)
	}
	return nil
}

// TestDistinctRunHoldsNoIdentifiers (issue 34 item 5): a run whose lister gives each identifier
// once (NewDistinctRun, an RDF source's) stores the identifiers it sees, so COMPARE keeps their
// datasets, but holds none of them: 60,000 identifiers seen leave its live heap under 1 MiB
// above where it started, where NewRun's set of them holds about 4 MiB.
func TestDistinctRunHoldsNoIdentifiers(t *testing.T) {
	ctx := context.Background()
	st := openSQLite(t)
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: "http://ex.org/catalog.ttl",
		SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP})
	require.NoError(t, err)
	const n = 60_000
	iri := func(i int) string { return fmt.Sprintf("https://data.example.org/dataset/%d", i) }
	live := []string{iri(0), iri(31_337), iri(n - 1), "gone"}
	old, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	for _, id := range live {
		rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: harvest.RecordID(old.ID, id), JobID: old.ID,
			SourceID: src.ID, Identifier: id, Action: harvest.ActionCreate, SourceRaw: "{}"})
		require.NoError(t, err)
		_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: id, Slug: id,
			DCAT: []byte("{}"), RecordID: rec.ID})
		require.NoError(t, err)
	}
	_, err = st.JobFail(ctx, &store.JobFailParams{JobID: old.ID, Type: "Test", Message: "done"})
	require.NoError(t, err)
	pub := &countingPublisher{}
	h := newHandler(st, pub, fetch.Config{}, func(c *extract.Config) { c.JobWindow = -1 })
	for _, distinct := range []bool{true, false} {
		row, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobForceHarvest})
		require.NoError(t, err)
		job := &harvest.Job{V: harvest.Version, JobID: row.ID, SourceID: src.ID, JobType: harvest.JobForceHarvest,
			SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP, URL: src.URL}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		run := h.NewRun(ctx, job)
		if distinct {
			run = h.NewDistinctRun(ctx, job)
		}
		for i := range n {
			pos, err := run.Next()
			require.NoError(t, err)
			require.NoError(t, run.See(&catalog.Entry{Position: pos, Identifier: iri(i)}))
		}
		require.NoError(t, run.Complete())
		runtime.GC()
		runtime.ReadMemStats(&ms)
		held := int64(ms.HeapAlloc) - int64(base)
		t.Logf("distinct %v: %d identifiers seen hold %d KiB", distinct, n, held>>10)
		if distinct {
			require.Less(t, held, int64(1<<20), "a distinct run holds no identifier")
			_, dup := run.FirstAt(iri(7))
			require.False(t, dup)
		} else {
			require.Greater(t, held, int64(2<<20), "NewRun's set of identifiers (the measure sees it)")
			_, dup := run.FirstAt(iri(7))
			require.True(t, dup)
		}
		runtime.KeepAlive(run)
		// Every identifier seen is stored: only the dataset not listed is unseen.
		var unseen []string
		require.NoError(t, st.DatasetListUnseen(ctx, &store.DatasetListUnseenParams{SourceID: src.ID, JobID: row.ID},
			func(id string) error { unseen = append(unseen, id); return nil }))
		require.Equal(t, []string{"gone"}, unseen)
		_, err = st.JobFail(ctx, &store.JobFailParams{JobID: row.ID, Type: "Test", Message: "done"})
		require.NoError(t, err)
	}
	require.Equal(t, 2, pub.listings)
}
