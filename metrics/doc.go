// Package metrics holds the Prometheus collectors that read Harvester's state when Prometheus
// scrapes, rather than counting events: the jobs and sources from the store (JobCollector),
// the sources' recorded metadata quality (QualityCollector),
// the database connection pool (PoolCollector) and whether the services answer (UpCollector).
// Event counters live with what they count (router, fetch, search, stages/report).
//
// Each collector bounds its reads by a timeout; a read that fails or times out leaves its
// series out of that scrape (an absent series, not a false zero), except UpCollector's, which
// reports 0. The figures are the system's, not the process's: every process that runs one
// reports the same values, so dashboards aggregate them with max.
package metrics
