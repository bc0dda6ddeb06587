package store

import (
	"encoding/json"
	"time"
)

// DatasetQualityParams selects the datasets DatasetQualityStream streams: the live datasets of
// SourceID, or the one dataset DatasetID when it is set.
type DatasetQualityParams struct {
	SourceID  string
	DatasetID string
}

// DatasetQuality is what the MQA (package quality) scores of one dataset.
type DatasetQuality struct {
	ID         string
	Slug       string
	Identifier string
	DCAT       json.RawMessage // the stored DCAT-US record (dataset.dcat)
	// Graph is the record graph of a DCAT-AP record (canonical N-Quads, its
	// harvest_record.source_raw), which the MQA scores in place of DCAT (quality.Input.Graph);
	// nil for any other record.
	Graph []byte
	// Findings is true when the dataset's record has a validation row (an error or a warning)
	// that counts against profile compliance: for a DCAT-AP record a SHACL finding (Type
	// harvest.TypeValidationError or TypeValidationWarning; TRANSFORM's warnings are about
	// DCAT-US, not DCAT-AP), for any other any row. quality.Input.Findings.
	Findings bool
	// URLs are its distribution URLs (quality.LinkURLs of DCAT).
	URLs []string
}

// LinkResult is a link_result row: the stored state of one distribution URL's check, as
// stages/check's check.Stored holds it (the store keeps a type of its own so that it imports no
// stage; quality/assess converts). Times are UTC; LastOKAt is zero when the URL never answered
// OK.
type LinkResult struct {
	URL                 string
	Status              int    // the HTTP status of the last answer; 0 when none came
	ErrorClass          string // check.ErrorClass: "" when answered
	Error               string // the error's text
	FinalURL            string
	ContentType         string
	ContentLength       int64 // -1: unknown
	Redirects           int
	OK                  bool
	CheckedAt           time.Time
	LastOKAt            time.Time
	ConsecutiveFailures int
}
