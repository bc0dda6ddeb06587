// Package store is Harvester's system of record: harvest sources, jobs, the append-only
// harvest_record history, record and job errors, the per-job outcome ledger and the live
// dataset table. Stages talk to storage only through the Store interface.
//
// Invariants every backend keeps (pinned by storetest.Run):
//   - at most one job per source is unfinished, new or in_progress (a database constraint, not a
//     check in Go);
//   - JobStartQueued starts a queued job only into a free slot under its cap, however many
//     callers race;
//   - a job's outcome for a record key is counted once, however often it is settled;
//   - harvest_record rows are never updated except when their outcome settles: status, finish
//     time and the source_transform TRANSFORM made (OutcomeSettleParams.SourceTransform);
//   - a dataset's slug never changes once given;
//   - history goes only with its source (SourceDelete) or by the retention (RecordPrune,
//     JobPrune: prune.go), which never deletes a dataset's record, the newest or newest
//     comparable record of a key, or a source's newest jobs.
//
// Backend errors are mapped at the edge to ErrNotFound and ErrConflict; nothing above this
// package imports a driver.
package store
