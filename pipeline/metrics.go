package pipeline

import (
	"context"
	"regexp"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/metrics"
	"github.com/harvester-dev/harvester/store"
)

// The metrics each process registers on Config.Registry, besides the stages' own (router's
// per-stage metrics and consumer lag, stages/report's job counters), are wired here:
//   - messages published by subject (router.Bus.Instrument), in every process;
//   - the fetch client's attempts (fetch.Metrics) and, where SYNC runs, the search index's
//     bulk requests (search.Metrics);
//   - the database pool (metrics.PoolCollector), on Postgres;
//   - whether the database and NATS answer (metrics.UpCollector), in every process;
//   - the HTTP connections refused past HTTPConfig.MaxConnsPerClient, by listener (http: Addr,
//     ops: OpsAddr);
//   - the jobs and sources (metrics.JobCollector), only where the scheduler or the API runs:
//     it reads the store at each scrape and its figures are the system's, so one process
//     reporting them is enough and a fleet of workers does not multiply the queries.

// instrumentServices registers the bus's and the fetch client's metrics, before any part uses
// them.
func (p *Pipeline) instrumentServices() error {
	if err := p.bus.Instrument(p.reg); err != nil {
		return err
	}
	m, err := fetch.NewMetrics(p.reg)
	if err != nil {
		return err
	}
	p.cfg.Fetch.Metrics = m
	p.refused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "harvester_http_connections_refused_total",
		Help: "HTTP connections answered 429 and closed because their client held HTTPConfig.MaxConnsPerClient already, by listener (http, ops)."},
		[]string{"listener"})
	if err := p.reg.Register(p.refused); err != nil {
		return err
	}
	if pooled, ok := p.store.(store.Pooled); ok {
		if err := p.reg.Register(metrics.NewPoolCollector(pooled)); err != nil {
			return err
		}
	}
	return nil
}

// instrumentState registers the collectors that read the state of the services at scrape time:
// the readiness checks, and the jobs and the sources' quality where the scheduler or the API runs.
func (p *Pipeline) instrumentState(ready map[string]func(context.Context) error) error {
	if err := p.reg.Register(metrics.NewUpCollector(ready, p.cfg.Logger, 0)); err != nil {
		return err
	}
	if p.cfg.Scheduler == nil && p.cfg.API == nil {
		return nil
	}
	if err := p.reg.Register(metrics.NewJobCollector(p.store, p.cfg.Logger, 0)); err != nil {
		return err
	}
	return p.reg.Register(metrics.NewQualityCollector(p.store, p.cfg.Logger, 0))
}

// registry is Config.Registry as the pipeline's parts see it: it records the collectors they
// register, so that MetricNames can list every metric the process exports, with series or not.
type registry struct {
	*prometheus.Registry
	mu         sync.Mutex
	collectors []prometheus.Collector
}

// Register implements prometheus.Registerer.
func (r *registry) Register(c prometheus.Collector) error {
	if err := r.Registry.Register(c); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.collectors = append(r.collectors, c)
	return nil
}

// MustRegister implements prometheus.Registerer.
func (r *registry) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

// descName reads a descriptor's metric name (Desc has no getter; its String names it).
var descName = regexp.MustCompile(`fqName: "([^"]+)"`)

// MetricNames lists, sorted, the name of every metric the pipeline's parts registered on
// Config.Registry: what its /metrics can serve, whether or not a series exists yet. Collectors
// the caller registered itself (cmd's Go and process collectors) are not listed. A histogram is
// listed by its base name (its series add _bucket, _sum and _count).
func (p *Pipeline) MetricNames() []string {
	p.reg.mu.Lock()
	cs := slices.Clone(p.reg.collectors)
	p.reg.mu.Unlock()
	descs := make(chan *prometheus.Desc)
	go func() {
		for _, c := range cs {
			c.Describe(descs)
		}
		close(descs)
	}()
	var names []string
	for d := range descs {
		if m := descName.FindStringSubmatch(d.String()); m != nil {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
