package h2import_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/h2import"
	"github.com/harvester-dev/harvester/h2import/h2dumptest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

const copySource = "ffffffff-ffff-4fff-8fff-0000000000b2" // after gsaSource in id order

// snapshot is what an import wrote of a source: its source row (nil when absent), its datasets,
// their records and its jobs.
type snapshot struct {
	Source   *store.Source
	Datasets []*store.Dataset
	Records  []*store.HarvestRecord
	Jobs     []string
}

func takeSnapshot(t *testing.T, st store.Store, sourceID string) snapshot {
	t.Helper()
	ctx := context.Background()
	var s snapshot
	src, err := st.SourceGet(ctx, sourceID)
	if err != nil {
		require.ErrorIs(t, err, store.ErrNotFound)
	} else {
		src.CreatedAt, src.UpdatedAt, src.NextRunAt = time.Time{}, time.Time{}, nil // the import's time
		s.Source = src
	}
	s.Datasets, err = st.DatasetList(ctx, &store.DatasetListParams{SourceID: sourceID})
	require.NoError(t, err)
	for _, d := range s.Datasets {
		rec, err := st.RecordGet(ctx, d.RecordID)
		require.NoError(t, err)
		s.Records = append(s.Records, rec)
	}
	jobs, _, err := st.JobList(ctx, &store.JobListParams{SourceID: sourceID})
	require.NoError(t, err)
	for _, j := range jobs {
		s.Jobs = append(s.Jobs, j.ID+" "+string(j.Status))
	}
	n, err := st.RecordCount(ctx, sourceID)
	require.NoError(t, err)
	require.Len(t, s.Records, n, "every record of the source is a live dataset's")
	return s
}

// TestInterruptedImport: an import that stops in the middle of a source (a store write fails,
// as a kill would stop it) leaves that source absent, with none of its jobs, records and
// datasets, while the source before it is imported whole; running it again completes the
// import with exactly the rows of one uninterrupted import.
func TestInterruptedImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h2 := h2dumptest.Load(t, "h2-gsa-2025-07.sql.gz")
	h2dumptest.CopySource(t, h2, gsaSource, copySource, "copy")
	cfg := h2import.Config{From: h2}

	clean := dbtest.Store(t)
	rep, err := h2import.Run(ctx, cfg, clean)
	require.NoError(t, err)
	require.Empty(t, rep.Errors)
	require.Equal(t, 2*343, rep.Datasets.Created, rep.String())

	url := dbtest.URL(t)
	st := dbtest.Open(t, url)
	require.NoError(t, st.Migrate(ctx))
	undo := h2dumptest.FailDatasetInsert(t, url, takeSnapshot(t, clean, copySource).Datasets[170].Slug)
	_, err = h2import.Run(ctx, cfg, st)
	require.ErrorContains(t, err, "injected failure")
	require.Equal(t, takeSnapshot(t, clean, gsaSource), takeSnapshot(t, st, gsaSource), "the first source is whole")
	require.Equal(t, snapshot{}, takeSnapshot(t, st, copySource), "the interrupted source is absent")

	undo()
	again, err := h2import.Run(ctx, cfg, st)
	require.NoError(t, err)
	require.Empty(t, again.Errors)
	require.Equal(t, 343, again.Datasets.Created, again.String())
	require.Equal(t, 343, again.Datasets.Unchanged)
	for _, src := range []string{gsaSource, copySource} {
		require.Equal(t, takeSnapshot(t, clean, src), takeSnapshot(t, st, src), src)
	}
}

// TestImportedSourceNotDue: an imported weekly source is not due at once (the scheduler's due
// query does not list it), but a week after the import.
func TestImportedSourceNotDue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h2 := h2dumptest.Load(t, "h2-gsa-2025-07.sql.gz")
	h2dumptest.Exec(t, h2, `UPDATE harvest_source SET frequency = 'weekly'`)
	st := dbtest.Store(t)
	imported := time.Now()
	_, err := h2import.Run(ctx, h2import.Config{From: h2}, st)
	require.NoError(t, err)
	due, err := st.SourceListDue(ctx, &store.SourceListDueParams{Now: time.Now()})
	require.NoError(t, err)
	require.Empty(t, due, "not due at once")
	due, err = st.SourceListDue(ctx, &store.SourceListDueParams{Now: imported.AddDate(0, 0, 7).Add(time.Minute)})
	require.NoError(t, err)
	require.Len(t, due, 1)
	require.Equal(t, gsaSource, due[0].ID)
}
