package retention_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/retention"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// TestPruneWholeJobs prunes a history of real jobs of the sample catalog, whose invalid
// records are errored in every job (a harvest, a changed catalog, a validate job, a force
// harvest and a harvest of an unchanged catalog) with the clock moved past the
// retention, on both setups: a dry run counts what the run then deletes and deletes nothing;
// afterwards every live dataset's record is there, each source keeps its newest jobs and its
// whole quality history (one row per job that recorded it, the pruned ones' included), and a
// harvest finds every record unchanged and deletes nothing; the metric counts what went.
func TestPruneWholeJobs(t *testing.T) {
	t.Parallel()
	for name, setup := range map[string]func(t *testing.T, h *pipelinetest.Harness) store.Store{
		"postgres": func(_ *testing.T, h *pipelinetest.Harness) store.Store { return h.Store },
		"sqlite": func(t *testing.T, h *pipelinetest.Harness) store.Store {
			h.Config.DatabaseURL, h.Config.NATSURL = "", ""
			st, err := sqlite.Open(t.Context(), filepath.Join(h.Config.DataDir, "harvester.db"))
			require.NoError(t, err)
			t.Cleanup(st.Close)
			require.NoError(t, st.Migrate(t.Context()))
			return st
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := pipelinetest.New(t)
			st := setup(t, h)
			src := pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal}
			sample, changed := pipelinetest.SampleCatalog(t), changedSample(t)
			run := func(file string, jobType harvest.JobType) pipelinetest.Report {
				h.Corpus.Serve(file)
				src.JobType = jobType
				rep := h.Harvest(t, src)
				pipelinetest.MustComplete(t, rep)
				return rep
			}
			first := run(sample, harvest.JobHarvest)
			require.Equal(t, [2]int{1, 1}, func(r pipelinetest.Report) [2]int { return [2]int{r.Updated, r.Deleted} }(
				run(changed, harvest.JobHarvest)), "the catalog changed")
			run(changed, harvest.JobValidate)
			forced := run(changed, harvest.JobForceHarvest)
			last := run(changed, harvest.JobHarvest)
			require.NotZero(t, last.Errored, "the sample's invalid records")

			ctx := context.Background()
			history := qualityJobs(t, st, last.SourceID)
			require.Equal(t, first.JobID, history[0], "each job but the validate one recorded the quality: %v", history)
			records, err := st.RecordCount(ctx, last.SourceID)
			require.NoError(t, err)
			reg := prometheus.NewRegistry()
			pr, err := retention.New(retention.Config{Retention: time.Hour, KeepJobs: 2, BatchSize: 7}, st, h.Config.Logger, reg)
			require.NoError(t, err)
			later := time.Now().Add(2 * time.Hour) // the clock moved: every row is older than the retention
			dry, err := pr.Run(ctx, later, true)
			require.NoError(t, err)
			require.True(t, dry.DryRun)
			require.NotZero(t, dry.Rows[store.TableRecord])
			require.Equal(t, 2, dry.Rows[store.TableJob], "the first harvest and the validate job (the second holds a delete)")
			after, err := st.RecordCount(ctx, last.SourceID)
			require.NoError(t, err)
			require.Equal(t, records, after, "a dry run deletes nothing")
			require.Zero(t, prunedRows(t, reg, store.TableRecord), "a dry run counts nothing there")

			rep, err := pr.Run(ctx, later, false)
			require.NoError(t, err)
			require.Equal(t, dry.Rows, rep.Rows)
			require.Equal(t, float64(rep.Rows[store.TableRecord]), prunedRows(t, reg, store.TableRecord))
			again, err := pr.Run(ctx, later, false)
			require.NoError(t, err)
			require.Zero(t, again.Total(), "a second run finds nothing")

			require.Equal(t, forced.Updated, liveWithRecords(t, st, last.SourceID))
			jobs, total, err := st.JobList(ctx, &store.JobListParams{SourceID: last.SourceID})
			require.NoError(t, err)
			require.Equal(t, 3, total, "the changed harvest (it holds the newest record of the deleted dataset), "+
				"the force harvest (the datasets' records) and the last harvest")
			require.Equal(t, []string{last.JobID, forced.JobID}, []string{jobs[0].ID, jobs[1].ID})
			require.Equal(t, history, qualityJobs(t, st, last.SourceID), "the quality history outlives the first job, pruned")

			kept, err := st.RecordCount(ctx, last.SourceID)
			require.NoError(t, err)
			next := run(changed, harvest.JobHarvest)
			require.Equal(t, [5]int{0, 0, 0, last.Unchanged, last.Errored},
				[5]int{next.Added, next.Updated, next.Deleted, next.Unchanged, next.Errored},
				"a harvest after the prune finds every record as it was")
			written, err := st.RecordCount(ctx, last.SourceID)
			require.NoError(t, err)
			require.Equal(t, kept, written, "and writes no record")
		})
	}
}

// qualityJobs are the jobs of the source's quality history, oldest first: four, one per job but
// the validate one.
func qualityJobs(t *testing.T, st store.Store, sourceID string) []string {
	t.Helper()
	rows, err := st.QualityAggregateHistory(t.Context(), &store.QualityAggregateHistoryParams{
		Scope: store.QualityScopeSource, ScopeID: sourceID})
	require.NoError(t, err)
	var jobs []string
	for _, r := range rows {
		jobs = append(jobs, r.JobID)
	}
	require.Len(t, jobs, 4)
	return jobs
}

// liveWithRecords counts the source's live datasets, each of which must have its record.
func liveWithRecords(t *testing.T, st store.Store, sourceID string) int {
	t.Helper()
	live := 0
	require.NoError(t, st.DatasetStream(t.Context(), &store.DatasetListParams{SourceID: sourceID}, func(d *store.Dataset) error {
		live++
		_, err := st.RecordGet(t.Context(), d.RecordID)
		require.NoError(t, err, "the record of live dataset %s", d.Identifier)
		return nil
	}))
	return live
}

// changedSample is the sample catalog with its first dataset's title changed and its second
// dataset gone, in a file of the test's.
func changedSample(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(pipelinetest.SampleCatalog(t))
	require.NoError(t, err)
	var cat map[string]any
	require.NoError(t, json.Unmarshal(raw, &cat))
	ds := cat["dataset"].([]any)
	ds[0].(map[string]any)["title"] = "A title changed since"
	cat["dataset"] = append(ds[:1], ds[2:]...)
	out, err := json.Marshal(cat)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "changed.data.json")
	require.NoError(t, os.WriteFile(path, out, 0o600))
	return path
}

// prunedRows is harvester_pruned_rows_total{table} as reg gathers it.
func prunedRows(t *testing.T, reg *prometheus.Registry, table string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if f.GetName() == "harvester_pruned_rows_total" && m.GetLabel()[0].GetValue() == table {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no harvester_pruned_rows_total{table=%q}", table)
	return 0
}
