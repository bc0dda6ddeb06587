package store

import (
	"encoding/json"
	"time"
)

// Dataset is a live dataset row of the federal catalog.
type Dataset struct {
	ID                string
	Slug              string
	SourceID          string
	Identifier        string
	DCAT              json.RawMessage
	RecordID          string
	LastHarvestedDate time.Time
	RecordType        string // the DCAT-US 3.0 record type (harvest.RecordType*); "dataset" for every other record
	// DuplicateOf is the dataset of another source this one duplicates and lost to (a held
	// dataset: not live, see CrossSourceDuplicate); "" for a live dataset.
	DuplicateOf string
	// LandingPage and DownloadURLsSHA are the duplicate keys DatasetUpsertParams gave ("" for none).
	LandingPage     string
	DownloadURLsSHA string
}

// DatasetRecordType is the record_type a dataset row stores for a record of type t: t, or
// "dataset" when t is "".
func DatasetRecordType(t string) string {
	if t == "" {
		return "dataset"
	}
	return t
}

// DatasetDeleteParams names a dataset by source and identifier.
type DatasetDeleteParams struct {
	SourceID   string
	Identifier string
	// JobID, when not "", is the job whose delete record this is: the dataset is deleted only
	// while that job is new or in progress (ErrJobEnded otherwise). "" deletes whatever the
	// job's status (a replayed record, an operator's action).
	JobID string
}

// DatasetFindElsewhereParams names an identifier and the source to leave out.
type DatasetFindElsewhereParams struct {
	SourceID   string
	Identifier string
}

// DatasetElsewhere is a live dataset of another source (DatasetFindElsewhere).
type DatasetElsewhere struct {
	SourceID   string
	SourceName string
	Identifier string
	Slug       string
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
	// AltSlug, when not "", is the slug a created dataset takes instead of Slug when another
	// dataset already has Slug (DatasetUpsertBatch only): one batch statement then writes a
	// catalog whose titles repeat, instead of failing on the first slug taken. "" keeps the
	// rule that a taken slug fails the batch with ErrConflict.
	AltSlug    string
	DCAT       json.RawMessage
	RecordID   string
	RecordType string // harvest.RecordType*; "" is a dataset
	// LandingPage and DownloadURLsSHA are the dataset's cross-source duplicate keys besides
	// its identifier ("" for none): its DCAT-US landingPage and the SHA-256 (hex) of its
	// distribution downloadURL set (catalogsync.DuplicateKeys).
	LandingPage     string
	DownloadURLsSHA string
	// JobID, when not "", is the job of RecordID: the dataset is written only while that job
	// is new or in progress, checked in the statement that writes it (ErrJobEnded otherwise),
	// so that a job that ended (cancelled, failed) changes the catalog no more. "" writes
	// whatever the job's status (a replayed record of a finished job, an import).
	JobID string
}
