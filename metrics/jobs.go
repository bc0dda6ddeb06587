package metrics

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// JobStatser is what JobCollector needs of the store.
type JobStatser interface {
	JobStats(ctx context.Context) (*store.JobStats, error)
}

// JobCollector reports store.JobStats at each scrape, with no job or source id as a label:
//
//	harvester_jobs_in_progress                                  jobs in progress
//	harvester_jobs_in_progress_records_expected                 their expected outcomes (listings complete)
//	harvester_jobs_in_progress_records_settled                  their outcomes settled so far
//	harvester_jobs_in_progress_oldest_start_timestamp_seconds   Unix time the oldest started (absent: none)
//	harvester_jobs_in_progress_stalest_heartbeat_timestamp_seconds  the oldest heartbeat (absent: none)
//	harvester_sources_latest_job{status}                        sources whose latest finished job has status
//	harvester_sources_latest_job_finish_timestamp_seconds{status}  the latest finish among them
//	harvester_sources_failed_streak_max                         longest run of failed jobs of one source
type JobCollector struct {
	store   JobStatser
	logger  *slog.Logger
	timeout time.Duration

	inProgress, expected, settled, oldest, stalest, latest, latestFinish, streak *prometheus.Desc
}

// NewJobCollector returns a JobCollector over st whose reads take at most timeout (default 5 s).
func NewJobCollector(st JobStatser, logger *slog.Logger, timeout time.Duration) *JobCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &JobCollector{store: st, logger: logger, timeout: cmp.Or(timeout, 5*time.Second),
		inProgress: d("harvester_jobs_in_progress", "Harvest jobs in progress."),
		expected:   d("harvester_jobs_in_progress_records_expected", "Expected outcomes of the jobs in progress whose listing is complete."),
		settled:    d("harvester_jobs_in_progress_records_settled", "Outcomes settled so far by the jobs in progress."),
		oldest:     d("harvester_jobs_in_progress_oldest_start_timestamp_seconds", "Unix time the oldest job in progress was created."),
		stalest:    d("harvester_jobs_in_progress_stalest_heartbeat_timestamp_seconds", "Unix time of the oldest heartbeat of a job in progress."),
		latest:     d("harvester_sources_latest_job", "Harvest sources whose latest finished job ended with status.", "status"),
		latestFinish: d("harvester_sources_latest_job_finish_timestamp_seconds",
			"Unix time of the latest finish among the sources' latest jobs that ended with status.", "status"),
		streak: d("harvester_sources_failed_streak_max", "Longest run of failed jobs of one source since its latest complete job."),
	}
}

// Describe implements prometheus.Collector.
func (c *JobCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.inProgress, c.expected, c.settled, c.oldest, c.stalest, c.latest, c.latestFinish, c.streak} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *JobCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	st, err := c.store.JobStats(ctx)
	if err != nil {
		c.logger.Warn("metrics: job stats", "error", err)
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(c.inProgress, float64(st.InProgress))
	gauge(c.expected, float64(st.InProgressExpected))
	gauge(c.settled, float64(st.InProgressSettled))
	if st.OldestStart != nil {
		gauge(c.oldest, unix(*st.OldestStart))
	}
	if st.StalestHeartbeat != nil {
		gauge(c.stalest, unix(*st.StalestHeartbeat))
	}
	byStatus := map[harvest.JobStatus]store.SourceLatestJobs{}
	for _, l := range st.Latest {
		byStatus[l.Status] = l
	}
	for _, status := range []harvest.JobStatus{harvest.JobComplete, harvest.JobError} {
		l := byStatus[status]
		gauge(c.latest, float64(l.Sources), string(status))
		if l.LastFinished != nil {
			gauge(c.latestFinish, unix(*l.LastFinished), string(status))
		}
	}
	gauge(c.streak, float64(st.MaxFailedStreak))
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
