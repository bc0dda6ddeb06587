package metrics

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/store"
)

// QualityReader is what QualityCollector needs of the store.
type QualityReader interface {
	QualityAggregateLatest(ctx context.Context, scope string) ([]*store.QualityAggregate, error)
}

// QualityCollector reports, at each scrape, the metadata quality each source's latest
// finished job recorded (store.QualityAggregateLatest; docs/quality.md), one series per
// source that exists and has a recorded job, labelled by its id and name:
//
//	harvester_quality_score{source_id, source}  the mean MQA score of its live datasets, 0–405
//	harvester_links_broken{source_id, source}   its distinct distribution URLs whose latest check found them broken
//
// The values change when a job ends, not when a link is checked in between.
type QualityCollector struct {
	store   QualityReader
	logger  *slog.Logger
	timeout time.Duration

	score, broken *prometheus.Desc
}

// NewQualityCollector returns a QualityCollector over st whose reads take at most timeout
// (default 5 s).
func NewQualityCollector(st QualityReader, logger *slog.Logger, timeout time.Duration) *QualityCollector {
	return &QualityCollector{store: st, logger: logger, timeout: cmp.Or(timeout, 5*time.Second),
		score: prometheus.NewDesc("harvester_quality_score",
			"Mean MQA score (0-405 points) of a source's live datasets when its latest job ended.", []string{"source_id", "source"}, nil),
		broken: prometheus.NewDesc("harvester_links_broken",
			"Distinct distribution URLs of a source whose latest check found them broken, when its latest job ended.",
			[]string{"source_id", "source"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *QualityCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.score
	ch <- c.broken
}

// Collect implements prometheus.Collector.
func (c *QualityCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	rows, err := c.store.QualityAggregateLatest(ctx, store.QualityScopeSource)
	if err != nil {
		c.logger.Warn("metrics: quality", "error", err)
		return
	}
	for _, r := range rows {
		ch <- prometheus.MustNewConstMetric(c.score, prometheus.GaugeValue, r.Mean, r.ScopeID, r.SourceName)
		ch <- prometheus.MustNewConstMetric(c.broken, prometheus.GaugeValue, float64(r.LinksBroken), r.ScopeID, r.SourceName)
	}
}
