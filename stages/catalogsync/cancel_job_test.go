package catalogsync_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/store"
)

// TestCancelledForceHarvestLandsNothingAfter: a force_harvest of 1,177 records cancelled
// while its records are on their way (some synced, some past COMPARE) writes nothing after
// its end. Once every message in flight has been handled, the job's counts add up, every
// dataset that points at one of its records is counted as updated, and none of its records is
// left pending; the records it did not sync are errored with a CancelledJob row. On both
// backends (Postgres and NATS; the embedded SQLite and in-process NATS).
func TestCancelledForceHarvestLandsNothingAfter(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"postgres", "embedded"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			const file = "dcatus/agency-va-2025-07.data.json"
			h := pipelinetest.New(t)
			if backend == "embedded" {
				h.Config.DatabaseURL, h.Config.NATSURL = "", ""
			}
			first := h.HarvestCorpus(t, file)
			require.Greater(t, first.Added, 1000)

			ctx := context.Background()
			pl, err := pipeline.New(ctx, h.Config)
			require.NoError(t, err)
			require.NoError(t, pl.Start(ctx))
			defer pl.Close()
			st := pl.Store()
			job, err := pl.Jobs().Start(ctx, pipelinetest.Source{URL: h.Corpus.URL(), SourceType: harvest.SourceDocument,
				SchemaType: pipelinetest.Federal, JobType: harvest.JobForceHarvest})
			require.NoError(t, err)
			// Cancel once a tenth of the records has settled: the rest are on their way.
			waitFor(t, "a tenth of the records settled", func() bool {
				j, err := st.JobGet(ctx, job.ID)
				require.NoError(t, err)
				require.False(t, j.Status.Finished(), "the job ended before the test could cancel it: %+v", j.Counts)
				return j.Settled >= first.Added/10
			})
			_, err = pl.Jobs().Cancel(ctx, job.ID, "cancelled by the test")
			require.NoError(t, err)
			waitIdle(t, pl.Bus())

			j, err := st.JobGet(ctx, job.ID)
			require.NoError(t, err)
			require.Equal(t, harvest.JobError, j.Status)
			require.Equal(t, j.Total, j.Added+j.Updated+j.Deleted+j.Unchanged+j.Errored, "counts add up: %+v", j.Counts)
			require.Zero(t, j.Added)

			live, err := st.DatasetList(ctx, &store.DatasetListParams{SourceID: job.SourceID})
			require.NoError(t, err)
			require.Len(t, live, first.Added, "a cancelled job deletes nothing")
			pointing := 0
			for _, d := range live {
				if d.RecordID == harvest.RecordID(job.ID, d.Identifier) {
					pointing++
				}
			}
			require.Equal(t, j.Updated, pointing,
				"every live dataset that points at a record of the cancelled job is counted as updated, no more, no less")

			statuses := map[harvest.RecordStatus]int{}
			for _, id := range slices.Sorted(maps.Keys(pipelinetest.CatalogRecords(t, file))) {
				rec, err := st.RecordGet(ctx, harvest.RecordID(job.ID, id))
				if errors.Is(err, store.ErrNotFound) {
					continue // never got past COMPARE
				}
				require.NoError(t, err)
				statuses[rec.Status]++
			}
			require.Zero(t, statuses[harvest.RecordPending], "no record of an ended job stays pending: %v", statuses)
			require.Equal(t, pointing, statuses[harvest.RecordSuccess], "a record is success when its dataset is live: %v", statuses)
			cancelled := 0
			require.NoError(t, st.RecordErrorStream(ctx, job.ID, func(e *store.RecordError) error {
				if e.Type == harvest.TypeCancelledJob {
					cancelled++
				}
				return nil
			}))
			require.Equal(t, statuses[harvest.RecordFailed], cancelled, "each record the job did not sync has a CancelledJob row")
			t.Logf("%s: cancelled after %d settled: %+v, records %v", backend, first.Added/10, j.Counts, statuses)
		})
	}
}

// waitFor polls cond until it holds; the limit only stops a hung test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "timed out waiting for %s", what)
	}
}

// waitIdle returns once no message is in flight: every stage's durable consumer has nothing
// pending and nothing unacknowledged, twice in a row.
func waitIdle(t *testing.T, bus *router.Bus) {
	t.Helper()
	idle := 0
	waitFor(t, "the pipeline to be idle", func() bool {
		lag, err := bus.Lag(context.Background())
		require.NoError(t, err)
		for _, c := range lag.Consumers {
			if c.Pending > 0 || c.AckPending > 0 {
				idle = 0
				return false
			}
		}
		idle++
		return idle >= 2
	})
}
