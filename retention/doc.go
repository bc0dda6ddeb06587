// Package retention keeps Harvester's history from growing for ever (issue 34 item 18): a
// Pruner deletes, in short batches, the record versions and jobs older than a retention that
// nothing needs any more, as udata's HARVEST_JOBS_RETENTION_DAYS and Data.gov's cleaning script
// for Harvesting 2.0 do. What goes and what never does is store.RecordPrune's and
// store.JobPrune's contract (store/prune.go): never a dataset's record, the newest or newest
// comparable record of a key, one of a source's 20 newest jobs, or any other table.
//
// A run is two passes over the store, each a series of calls of at most BatchSize rows from the
// first id to the last: records first, then jobs, so that the jobs whose every record the first
// pass deleted go in the second. The scheduler's leader runs it (scheduler.Config.Pruner), and
// `harvester prune` once, with --dry-run counting instead. Messages on the failed stream past the
// retention are NATS's to drop: the stream's MaxAge is the retention (router.WithFailedMaxAge).
package retention
