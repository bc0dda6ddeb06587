package metrics_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/metrics"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

var discard = slog.New(slog.DiscardHandler)

// TestJobCollector: the job and source gauges follow the store's jobs, with no id labels.
func TestJobCollector(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := dbtest.Store(t)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(metrics.NewJobCollector(st, discard, 0)))
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP harvester_jobs_in_progress Harvest jobs in progress.
# TYPE harvester_jobs_in_progress gauge
harvester_jobs_in_progress 0
# HELP harvester_sources_latest_job Harvest sources whose latest finished job ended with status.
# TYPE harvester_sources_latest_job gauge
harvester_sources_latest_job{status="complete"} 0
harvester_sources_latest_job{status="error"} 0
`), "harvester_jobs_in_progress", "harvester_sources_latest_job"))

	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: "https://example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	for range 2 {
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		_, err = st.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "FetchError", Message: "HTTP 503"})
		require.NoError(t, err)
	}
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	_, err = st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 4})
	require.NoError(t, err)
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP harvester_jobs_in_progress Harvest jobs in progress.
# TYPE harvester_jobs_in_progress gauge
harvester_jobs_in_progress 1
# HELP harvester_jobs_in_progress_records_expected Expected outcomes of the jobs in progress whose listing is complete.
# TYPE harvester_jobs_in_progress_records_expected gauge
harvester_jobs_in_progress_records_expected 4
# HELP harvester_sources_failed_streak_max Longest run of failed jobs of one source since its latest complete job.
# TYPE harvester_sources_failed_streak_max gauge
harvester_sources_failed_streak_max 2
# HELP harvester_sources_latest_job Harvest sources whose latest finished job ended with status.
# TYPE harvester_sources_latest_job gauge
harvester_sources_latest_job{status="complete"} 0
harvester_sources_latest_job{status="error"} 1
`), "harvester_jobs_in_progress", "harvester_jobs_in_progress_records_expected", "harvester_sources_failed_streak_max",
		"harvester_sources_latest_job"))
	require.Equal(t, 1, testutil.CollectAndCount(reg, "harvester_jobs_in_progress_oldest_start_timestamp_seconds"))
	require.Equal(t, 1, testutil.CollectAndCount(reg, "harvester_sources_latest_job_finish_timestamp_seconds"))
}

// TestPoolCollector: the pool's connections and acquisitions are reported.
func TestPoolCollector(t *testing.T) {
	t.Parallel()
	st := dbtest.Store(t)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(metrics.NewPoolCollector(st)))
	before := st.PoolStats().AcquireCount
	_, _, err := st.OrganizationList(t.Context(), &store.PageParams{Limit: 1})
	require.NoError(t, err)
	families, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			got[f.GetName()] += m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	require.Equal(t, float64(st.PoolStats().MaxConns), got["harvester_db_pool_max_connections"])
	require.Greater(t, got["harvester_db_pool_acquires_total"], float64(before))
	require.Positive(t, got["harvester_db_pool_connections"])
}

// TestUpCollector: each check is reported, 0 when it fails.
func TestUpCollector(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(metrics.NewUpCollector(map[string]func(context.Context) error{
		"database": func(context.Context) error { return nil },
		"nats":     func(context.Context) error { return errors.New("nats: no servers available") },
	}, discard, 0)))
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP harvester_dependency_up Whether the service answered its readiness check (1) or not (0).
# TYPE harvester_dependency_up gauge
harvester_dependency_up{dependency="database"} 1
harvester_dependency_up{dependency="nats"} 0
`)))
}
