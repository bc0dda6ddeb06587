package store

import (
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

// OrganizationImportParams is an organization with a given id (harvester import-h2).
type OrganizationImportParams struct {
	ID   string // a UUID
	Name string
	Slug string
}

// SourceImportParams is a harvest source with a given id. A new source is scheduled as
// SourceInsert schedules one (now, unless manual); an updated one keeps its schedule.
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
