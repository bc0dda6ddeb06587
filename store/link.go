package store

import "encoding/json"

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
	// Findings is true when the dataset's record has a validation row (an error or a warning):
	// quality.Input.Findings.
	Findings bool
	// URLs are its distribution URLs (quality.LinkURLs of DCAT).
	URLs []string
}
