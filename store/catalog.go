package store

import "time"

// LiveDataset is a dataset with what a served catalog says of where it came from: its harvest
// source, the source's owner organization, and when the source first published its identifier.
// The feeds (data.json, DCAT-AP, the CKAN-compatible API) and the public pages read it.
type LiveDataset struct {
	Dataset
	SourceName string
	SourceURL  string
	SourceType string
	SchemaType string // the source's schema type ("" when it has none)
	// OrganizationID, OrganizationName and OrganizationSlug are the source's owner
	// organization ("" when the source has none).
	OrganizationID   string
	OrganizationName string
	OrganizationSlug string
	// FirstHarvested is when the source first published a dataset with this identifier
	// (source_key_first_published); zero when that is not known.
	FirstHarvested time.Time
}

// MaxDatasetPage is the most rows one DatasetPage returns.
const MaxDatasetPage = 1000

// DatasetPageParams selects one page of the live catalog (held cross-source duplicates left
// out) in dataset id order: a keyset, After being the last id of the page before. Empty
// fields do not filter.
type DatasetPageParams struct {
	OrganizationID string    // the datasets of this organization's sources
	SourceID       string    // the datasets of this source
	ModifiedSince  time.Time // datasets created or changed (last_harvested_date) at or after it
	After          string    // the page starts after this dataset id; "" for the first page
	Limit          int       // rows, 1..MaxDatasetPage; 0 means MaxDatasetPage
}

// DatasetFindParams names one dataset by its id or by its slug (exactly one of them).
type DatasetFindParams struct {
	ID   string
	Slug string
}

// DatasetPageStats is what DatasetPageStats says of a selection of the live catalog.
type DatasetPageStats struct {
	Count        int
	LastModified time.Time // the latest last_harvested_date; zero when Count is 0
}
