package store

import "errors"

var (
	// ErrNotFound is returned when the row asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict is returned when a write breaks a uniqueness rule (a second unfinished job for
	// a source, a taken source URL, organization slug or dataset slug) or when a delete would
	// take rows that others still need (an organization with sources, a source with datasets or
	// an unfinished job).
	ErrConflict = errors.New("conflict")
	// ErrJobEnded is returned by a write of a job's record (DatasetUpsert, DatasetUpsertBatch,
	// DatasetDelete, RecordInsert, RecordInsertBatch) when the job is no longer new or in
	// progress (it completed, failed or was cancelled, or was deleted with its source): the
	// write was refused in the statement that would have made it, and nothing was written.
	ErrJobEnded = errors.New("the job has ended")
)
