package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/harvester-dev/harvester/harvest"
)

// Store is every storage operation Harvester performs. Methods are noun-first and sorted; each
// takes one params struct. Implementations: store/postgres (and the conformance suite in
// store/storetest that every implementation must pass).
type Store interface {
	// Close releases the backend's connections.
	Close()

	// DatasetDelete removes the live dataset of (source, identifier); it reports whether a row
	// was removed. Deleting a missing dataset is not an error (redelivery is normal).
	DatasetDelete(ctx context.Context, p *DatasetDeleteParams) (bool, error)
	// DatasetGet returns the live dataset of (source, identifier), or ErrNotFound.
	DatasetGet(ctx context.Context, p *DatasetGetParams) (*Dataset, error)
	// DatasetList returns a source's live datasets ordered by identifier.
	DatasetList(ctx context.Context, p *DatasetListParams) ([]*Dataset, error)
	// DatasetListUnseen calls fn with each identifier of the source's live datasets that the
	// job did not list (stored minus seen), streaming rows; fn's error stops and is returned.
	DatasetListUnseen(ctx context.Context, p *DatasetListUnseenParams, fn func(identifier string) error) error
	// DatasetUpsert creates the dataset of (source, identifier) with p.Slug, or updates its
	// dcat, record and harvest date keeping the slug it has. It returns ErrConflict when a new
	// dataset's slug is taken by another dataset; the caller picks another slug.
	DatasetUpsert(ctx context.Context, p *DatasetUpsertParams) (*Dataset, error)

	// JobErrorList returns a job's job-level errors, oldest first.
	JobErrorList(ctx context.Context, jobID string) ([]*JobError, error)
	// JobFail ends an unfinished job in status error with one job error row. It returns the
	// job; a job that had already finished keeps its status and gets no row.
	JobFail(ctx context.Context, p *JobFailParams) (*Job, error)
	// JobFinish marks the job complete when its expected count is known and every expected
	// outcome has settled. It reports whether this call finished the job.
	JobFinish(ctx context.Context, jobID string) (*Job, bool, error)
	// JobGet returns one job, or ErrNotFound.
	JobGet(ctx context.Context, jobID string) (*Job, error)
	// JobIdentifierAdd records that the job's listing contained identifier (idempotent).
	JobIdentifierAdd(ctx context.Context, p *JobIdentifierAddParams) error
	// JobInsert creates an in_progress job for a source. It returns ErrConflict when the source
	// already has a job in progress.
	JobInsert(ctx context.Context, p *JobInsertParams) (*Job, error)
	// JobSetExpected records the job's expected outcome count and returns the job.
	JobSetExpected(ctx context.Context, p *JobSetExpectedParams) (*Job, error)

	// Migrate applies the backend's embedded migrations that have not run yet.
	Migrate(ctx context.Context) error

	// OutcomeSettle counts one record outcome of a job, atomically with its error rows and its
	// harvest_record status. It returns the job after counting and whether the outcome was new:
	// a key already settled for the job changes nothing and returns false.
	OutcomeSettle(ctx context.Context, p *OutcomeSettleParams) (*Job, bool, error)

	// RecordCount returns how many harvest_record rows a source has.
	RecordCount(ctx context.Context, sourceID string) (int, error)
	// RecordErrorList returns a job's record error rows ordered by identifier, then message.
	RecordErrorList(ctx context.Context, jobID string) ([]*RecordError, error)
	// RecordGet returns one harvest_record, or ErrNotFound.
	RecordGet(ctx context.Context, recordID string) (*Record, error)
	// RecordInsert writes a harvest_record row in status pending; inserting an id that exists
	// returns the existing row unchanged (redelivery).
	RecordInsert(ctx context.Context, p *RecordInsertParams) (*Record, error)
	// RecordLatest returns the newest record of (source, identifier) whose outcome is known to
	// compare against: status success, error_validation or error_transform. ErrNotFound if none.
	RecordLatest(ctx context.Context, p *RecordLatestParams) (*Record, error)

	// SourceEnsure returns the source with p.URL, creating it with p's fields when missing; an
	// existing source keeps its fields except schema_type, which p updates.
	SourceEnsure(ctx context.Context, p *SourceEnsureParams) (*Source, error)
	// SourceGet returns one source, or ErrNotFound.
	SourceGet(ctx context.Context, sourceID string) (*Source, error)
}

// Source is a harvest_source row.
type Source struct {
	ID         string
	Name       string
	URL        string
	SourceType harvest.SourceType
	SchemaType harvest.SchemaType
	CreatedAt  time.Time
}

// Job is a harvest_job row. Counts are records; Expected is nil until the listing completed.
type Job struct {
	ID         string
	SourceID   string
	JobType    harvest.JobType
	Status     harvest.JobStatus
	CreatedAt  time.Time
	FinishedAt *time.Time
	harvest.Counts
	Settled  int  // outcomes counted so far
	Expected *int // nil until the listing completed
}

// Record is a harvest_record row: one record's passage through one job.
type Record struct {
	ID         string
	JobID      string
	SourceID   string
	Identifier string
	Action     harvest.Action
	SourceHash string
	SourceRaw  string
	Status     harvest.RecordStatus
	CreatedAt  time.Time
}

// RecordError is a harvest_record_error row.
type RecordError struct {
	JobID      string
	RecordID   string // empty when the record never got a harvest_record row
	Identifier string
	Type       string
	Message    string
	Severity   harvest.Severity
}

// JobError is a harvest_job_error row.
type JobError struct {
	JobID     string
	Type      string
	Message   string
	CreatedAt time.Time
}

// Dataset is a live dataset row of the federal catalog.
type Dataset struct {
	ID                string
	Slug              string
	SourceID          string
	Identifier        string
	DCAT              json.RawMessage
	RecordID          string
	LastHarvestedDate time.Time
}

// DatasetDeleteParams names a dataset by source and identifier.
type DatasetDeleteParams struct {
	SourceID   string
	Identifier string
}

// DatasetGetParams names a dataset by source and identifier.
type DatasetGetParams struct {
	SourceID   string
	Identifier string
}

// DatasetListParams selects a source's datasets.
type DatasetListParams struct {
	SourceID string
}

// DatasetListUnseenParams selects a source's datasets that a job did not list.
type DatasetListUnseenParams struct {
	SourceID string
	JobID    string
}

// DatasetUpsertParams is a dataset write from SYNC.
type DatasetUpsertParams struct {
	SourceID   string
	Identifier string
	Slug       string // used only when the dataset is created
	DCAT       json.RawMessage
	RecordID   string
}

// JobFailParams ends a job in error.
type JobFailParams struct {
	JobID   string
	Type    string // e.g. ExtractError, ParseError
	Message string
}

// JobIdentifierAddParams records one listed identifier.
type JobIdentifierAddParams struct {
	JobID      string
	Identifier string
}

// JobInsertParams starts a job.
type JobInsertParams struct {
	ID       string // optional; generated when empty
	SourceID string
	JobType  harvest.JobType
}

// JobSetExpectedParams records a job's expected outcome count.
type JobSetExpectedParams struct {
	JobID    string
	Expected int
}

// OutcomeSettleParams is one record's settled outcome.
type OutcomeSettleParams struct {
	JobID      string
	Key        string
	Identifier string
	RecordID   string // optional: the harvest_record whose status becomes Status
	Outcome    harvest.Outcome
	Status     harvest.RecordStatus
	Validated  bool
	Errors     []harvest.RecordError
}

// RecordInsertParams is a harvest_record written by COMPARE.
type RecordInsertParams struct {
	ID         string
	JobID      string
	SourceID   string
	Identifier string
	Action     harvest.Action
	SourceHash string
	SourceRaw  string
}

// RecordLatestParams names a record key within a source.
type RecordLatestParams struct {
	SourceID   string
	Identifier string
}

// SourceEnsureParams finds or creates a source by URL.
type SourceEnsureParams struct {
	Name       string
	URL        string
	SourceType harvest.SourceType
	SchemaType harvest.SchemaType
}
