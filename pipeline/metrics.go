package pipeline

import (
	"context"

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
//   - the jobs and sources (metrics.JobCollector), only where the scheduler or the API runs:
//     it reads the store at each scrape and its figures are the system's, so one process
//     reporting them is enough and a fleet of workers does not multiply the queries.

// instrumentServices registers the bus's and the fetch client's metrics, before any part uses
// them.
func (p *Pipeline) instrumentServices() error {
	if err := p.bus.Instrument(p.cfg.Registry); err != nil {
		return err
	}
	m, err := fetch.NewMetrics(p.cfg.Registry)
	if err != nil {
		return err
	}
	p.cfg.Fetch.Metrics = m
	if pooled, ok := p.store.(store.Pooled); ok {
		if err := p.cfg.Registry.Register(metrics.NewPoolCollector(pooled)); err != nil {
			return err
		}
	}
	return nil
}

// instrumentState registers the collectors that read the state of the services at scrape time:
// the readiness checks, and the jobs where the scheduler or the API runs.
func (p *Pipeline) instrumentState(ready map[string]func(context.Context) error) error {
	if err := p.cfg.Registry.Register(metrics.NewUpCollector(ready, p.cfg.Logger, 0)); err != nil {
		return err
	}
	if p.cfg.Scheduler == nil && p.cfg.API == nil {
		return nil
	}
	return p.cfg.Registry.Register(metrics.NewJobCollector(p.store, p.cfg.Logger, 0))
}
