package metrics

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// UpCollector runs the readiness checks at each scrape, at once, and reports each:
//
//	harvester_dependency_up{dependency}   1 when the check passed within the timeout, else 0
//
// The dependencies are the checks' names (database, nats): a handful.
type UpCollector struct {
	checks  map[string]func(context.Context) error
	logger  *slog.Logger
	timeout time.Duration
	up      *prometheus.Desc
}

// NewUpCollector returns an UpCollector over checks (name to check), each given at most
// timeout (default 2 s).
func NewUpCollector(checks map[string]func(context.Context) error, logger *slog.Logger, timeout time.Duration) *UpCollector {
	return &UpCollector{checks: checks, logger: logger, timeout: cmp.Or(timeout, 2*time.Second),
		up: prometheus.NewDesc("harvester_dependency_up", "Whether the service answered its readiness check (1) or not (0).",
			[]string{"dependency"}, nil)}
}

// Describe implements prometheus.Collector.
func (c *UpCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.up }

// Collect implements prometheus.Collector.
func (c *UpCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	names := make([]string, 0, len(c.checks))
	for name := range c.checks {
		names = append(names, name)
	}
	slices.Sort(names)
	results := make([]float64, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			if err := c.checks[name](ctx); err != nil {
				c.logger.Warn("metrics: dependency check failed", "dependency", name, "error", err)
				return
			}
			results[i] = 1
		})
	}
	wg.Wait()
	for i, name := range names {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, results[i], name)
	}
}
