package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/store"
)

// PoolCollector reports a store's connection pool (store.Pooled) at each scrape:
//
//	harvester_db_pool_max_connections            the pool's size
//	harvester_db_pool_connections{state}         open connections: acquired (in use) or idle
//	harvester_db_pool_acquires_total             connections acquired
//	harvester_db_pool_empty_acquires_total       acquisitions that waited: no idle connection (saturation)
//	harvester_db_pool_canceled_acquires_total    acquisitions given up on (their context ended)
//	harvester_db_pool_acquire_duration_seconds_total  time spent acquiring
type PoolCollector struct {
	pool                                                      store.Pooled
	maxConns, conns, acquires, emptyAcquires, canceled, waits *prometheus.Desc
}

// NewPoolCollector returns a PoolCollector over pool.
func NewPoolCollector(pool store.Pooled) *PoolCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &PoolCollector{pool: pool,
		maxConns:      d("harvester_db_pool_max_connections", "Size of the database connection pool."),
		conns:         d("harvester_db_pool_connections", "Open database connections, acquired (in use) or idle.", "state"),
		acquires:      d("harvester_db_pool_acquires_total", "Database connections acquired from the pool."),
		emptyAcquires: d("harvester_db_pool_empty_acquires_total", "Acquisitions that waited because no connection was idle."),
		canceled:      d("harvester_db_pool_canceled_acquires_total", "Acquisitions given up on before a connection was free."),
		waits:         d("harvester_db_pool_acquire_duration_seconds_total", "Time spent acquiring database connections."),
	}
}

// Describe implements prometheus.Collector.
func (c *PoolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.maxConns, c.conns, c.acquires, c.emptyAcquires, c.canceled, c.waits} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *PoolCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.pool.PoolStats()
	metric := func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, t, v, labels...)
	}
	metric(c.maxConns, prometheus.GaugeValue, float64(st.MaxConns))
	metric(c.conns, prometheus.GaugeValue, float64(st.AcquiredConns), "acquired")
	metric(c.conns, prometheus.GaugeValue, float64(st.IdleConns), "idle")
	metric(c.acquires, prometheus.CounterValue, float64(st.AcquireCount))
	metric(c.emptyAcquires, prometheus.CounterValue, float64(st.EmptyAcquireCount))
	metric(c.canceled, prometheus.CounterValue, float64(st.CanceledAcquireCount))
	metric(c.waits, prometheus.CounterValue, st.AcquireDuration.Seconds())
}
