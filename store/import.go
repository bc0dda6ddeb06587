package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/harvester-dev/harvester/harvest"
)

// ImportResult is what an import write (OrganizationImport, SourceImport, JobImport,
// RecordImport, DatasetImport) did to its row: an import run again over the same input writes
// nothing and answers ImportUnchanged for every row.
type ImportResult int

const (
	ImportUnchanged ImportResult = iota // the row existed with exactly these fields
	ImportCreated                       // the row did not exist and was inserted
	ImportChanged                       // the row existed and was updated to these fields
)

// Importer is the import writes (Store has them all); Store.ImportTx gives one whose writes
// are in one transaction.
type Importer interface {
	DatasetImport(ctx context.Context, p *DatasetImportParams) (ImportResult, error)
	JobImport(ctx context.Context, p *JobImportParams) (ImportResult, error)
	OrganizationImport(ctx context.Context, p *OrganizationImportParams) (ImportResult, error)
	RecordImport(ctx context.Context, p *RecordImportParams) (ImportResult, error)
	SourceImport(ctx context.Context, p *SourceImportParams) (ImportResult, error)
}

// OrganizationImportParams is an organization with a given id (harvester import-h2).
type OrganizationImportParams struct {
	ID   string // a UUID
	Name string
	Slug string
}

// SourceImportParams is a harvest source with a given id. A new source's next run is one
// frequency after the import (none when manual): an imported source is not due at once. An
// updated one keeps its schedule.
type SourceImportParams struct {
	ID string // a UUID
	SourceInsertParams
}

// JobImportParams is a finished job with a given id: its type, status (complete or error),
// times and counts. Settled and expected are set to Counts.Total.
type JobImportParams struct {
	ID         string // a UUID
	SourceID   string
	JobType    harvest.JobType
	Status     harvest.JobStatus
	CreatedAt  time.Time
	FinishedAt time.Time
	harvest.Counts
}

// RecordImportParams is a harvest_record with a given id, in status success.
type RecordImportParams struct {
	ID              string // a UUID
	JobID           string
	SourceID        string
	Identifier      string
	Action          harvest.Action
	SourceHash      string
	H2SourceHash    string // Data.gov H2.0's source_hash (package h2hash); "" for none
	SourceRaw       string
	SourceTransform json.RawMessage // nil for none
	SchemaType      harvest.SchemaType
	CreatedAt       time.Time
}

// DatasetImportParams is a live dataset with a given id and slug.
type DatasetImportParams struct {
	ID                string // a UUID
	Slug              string
	SourceID          string
	Identifier        string
	DCAT              json.RawMessage
	RecordID          string
	LastHarvestedDate time.Time
	RecordType        string // harvest.RecordType*; "" is a dataset
}
