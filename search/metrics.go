package search

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics measures a Batcher's bulk requests for Prometheus (BatcherConfig.Metrics; nil
// measures nothing):
//
//	harvester_search_bulk_duration_seconds       one bulk request, retries apart
//	harvester_search_bulk_requests_total{result} ok, or failed (the whole request: unreachable,
//	                                             timeout, a 5xx)
//	harvester_search_bulk_ops_total{result}      ok, retried, or failed for good (after its attempts)
type Metrics struct {
	duration prometheus.Histogram
	requests *prometheus.CounterVec
	ops      *prometheus.CounterVec
}

// NewMetrics registers the search index metrics on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "harvester_search_bulk_duration_seconds",
			Help: "Time one bulk request to the search index took.", Buckets: prometheus.ExponentialBuckets(0.001, 4, 10)}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "harvester_search_bulk_requests_total",
			Help: "Bulk requests to the search index, by result (ok or failed as a whole)."}, []string{"result"}),
		ops: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "harvester_search_bulk_ops_total",
			Help: "Index and delete operations of bulk requests, by result (ok, retried, failed for good)."}, []string{"result"}),
	}
	for _, c := range []prometheus.Collector{m.duration, m.requests, m.ops} {
		if err := reg.Register(c); err != nil {
			return nil, errors.Join(errors.New("register search metrics"), err)
		}
	}
	for _, r := range []string{"ok", "failed"} {
		m.requests.WithLabelValues(r)
		m.ops.WithLabelValues(r)
	}
	m.ops.WithLabelValues("retried")
	return m, nil
}

// request counts one bulk request begun at start; err is its request-level error.
func (m *Metrics) request(start time.Time, err error) {
	if m == nil {
		return
	}
	m.duration.Observe(time.Since(start).Seconds())
	if err != nil {
		m.requests.WithLabelValues("failed").Inc()
		return
	}
	m.requests.WithLabelValues("ok").Inc()
}

// op counts n operations with result.
func (m *Metrics) op(result string, n int) {
	if m == nil || n == 0 {
		return
	}
	m.ops.WithLabelValues(result).Add(float64(n))
}
