package store

import "time"

// Retention of the history (issue 34 item 18): RecordPrune and JobPrune delete, one bounded
// batch per call, what the history no longer needs once it is older than a cutoff. What they
// never delete:
//   - the record a dataset points at (dataset.harvest_record_id, live or held: a stable dataset's
//     record may sit in a job years old), the newest record of each (source, identifier), and
//     the newest one with a known outcome (RecordLatest: what COMPARE compares against), so a
//     harvest after a prune finds every record unchanged that it found unchanged before;
//   - a job that still holds a record, one of the KeepJobs newest jobs of its source, the
//     source's latest finished harvest, force_harvest or clear job (JobFetchLatest: the base of
//     a conditional GET and of a 304's carried outcomes), a job a cross-source duplicate pair
//     names (dataset.duplicate_job_id), and a job that has not finished;
//   - any other table: sources, organizations, datasets, sessions, resource identities, catalog
//     checksums, and any table that keeps when a source first published a key.

// Tables whose rows the prune deletes, the label values of harvester_pruned_rows_total.
const (
	TableRecord        = "harvest_record"
	TableRecordError   = "harvest_record_error"
	TableJob           = "harvest_job"
	TableJobError      = "harvest_job_error"
	TableJobIdentifier = "harvest_job_identifier"
	TableJobOutcome    = "harvest_job_outcome"
)

// PruneTables are the tables the prune deletes from, in the order a report lists them.
var PruneTables = []string{TableRecord, TableRecordError, TableJob, TableJobError, TableJobIdentifier, TableJobOutcome}

// Defaults of PruneParams.
const (
	// DefaultPruneLimit is how many rows one prune call examines, and the most rows one of its
	// statements deletes: small enough that no statement holds its locks (on SQLite, the
	// database's write lock) for long.
	DefaultPruneLimit = 1000
	// DefaultKeepJobs is how many of each source's newest jobs are kept whatever their age
	// (udata and ckanext-harvest keep the recent jobs for their job pages in the same way).
	DefaultKeepJobs = 20
)

// PruneParams is one call of RecordPrune or JobPrune: a batch of rows, by id, after After.
type PruneParams struct {
	// Before is the cutoff (now minus the retention): a record version whose successor was
	// written before it, and a job that finished before it, may be deleted; the zero time
	// deletes nothing.
	Before time.Time
	// After is where the batch starts: the Next of the previous call of the pass ("" for the
	// first call).
	After string
	// Limit is how many rows (records for RecordPrune, jobs for JobPrune) the call examines,
	// and the most rows one of its statements deletes. 0: DefaultPruneLimit.
	Limit int
	// KeepJobs is how many of each source's newest jobs JobPrune keeps whatever their age. 0:
	// DefaultKeepJobs.
	KeepJobs int
	// DryRun counts the rows the call would delete and deletes none. A dry pass over the
	// whole history counts what a real pass would delete (JobPrune counts the records a real
	// RecordPrune pass would have deleted as gone).
	DryRun bool
}

// WithDefaults returns p with a Limit or KeepJobs below 1 set to its default.
func (p PruneParams) WithDefaults() PruneParams {
	if p.Limit <= 0 {
		p.Limit = DefaultPruneLimit
	}
	if p.KeepJobs <= 0 {
		p.KeepJobs = DefaultKeepJobs
	}
	return p
}

// Pruned is what one call deleted (with DryRun: would delete).
type Pruned struct {
	// Rows counts the rows by table (PruneTables); a table with none may be absent.
	Rows map[string]int
	// Next is the After of the pass's next call; "" when this call examined the last rows.
	Next string
}
