// Package scheduler runs the harvest schedule. On every tick the active scheduler (one across
// all replicas: store.LeaderAcquire, a Postgres advisory lock) does, in order:
//
//  1. orphan cleanup: a job in progress whose heartbeat is older than OrphanTimeout is re-driven
//     from Postgres (its job message sent to EXTRACT again, same job id; the stages are
//     idempotent, so it converges to exact counts) up to MaxRedrives times, and then finished
//     as error (FailedJobCleanup, naming the re-drives) and reported, so its source can run
//     again. Orphans wait while the broker cannot take job messages (Config.BusReady: a
//     nats-server restarting, or restarted with its store wiped, until its streams answer
//     again): a re-drive is counted only once the streams answer, so an outage does not use
//     up the re-drives;
//  2. due sources: each source whose next run has come gets a queued (new) harvest job, and its
//     next run moves on by whole periods of its frequency from the previous plan, so runs do
//     not drift with the scheduler's own delays;
//  3. dispatch: queued jobs start, oldest first, while fewer than MaxInProgress are in progress
//     (store.JobStartQueued), and their job messages go to EXTRACT; a job whose message
//     cannot be sent (the broker is down) stays in progress and step 1 re-drives it;
//  4. retention: when Config.Pruner is set, the history older than the retention goes (a
//     retention.Pruner, in short batches) at the leader's first tick and every PruneInterval
//     after, in the background so that the ticks go on; a scheduler that stops leading ends
//     its run.
//  5. link recheck: when Config.Rechecker is set (the CHECK stage's), the distribution URLs of
//     live datasets last checked longer ago than --link-recheck are queued for CHECK, and the
//     checks of URLs no live dataset uses any more are dropped, at the first tick and every
//     RecheckInterval after, in the background like the retention.
//
// Schedulers that are not the leader stand by and try again on the next tick.
package scheduler
