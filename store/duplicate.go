package store

import "time"

// The keys by which two datasets of different sources are the same dataset
// (CrossSourceDuplicate.Match).
const (
	// MatchIdentifier: both records have the same identifier.
	MatchIdentifier = "identifier"
	// MatchLandingPage: both DCAT-US records have the same non-empty landingPage.
	MatchLandingPage = "landingPage"
	// MatchDownloadURL: both DCAT-US records have the same non-empty set of
	// distribution[].downloadURL values (order and repeats do not matter).
	MatchDownloadURL = "downloadURL"
)

// CrossSourceDuplicate is a pair of datasets of two sources that are the same dataset: the
// catalog keeps one live (Kept) and holds the other (Held: its record stays harvested, with
// status success, but the dataset is not live: it is left out of the search index, the API's
// and web UI's dataset lists and counts, and the catalog export). Kept is the side whose source
// has the higher Precedence; at equal precedence, the side whose source first published a
// dataset with the shared key (Store.DatasetDuplicateFind says how that is ordered).
type CrossSourceDuplicate struct {
	Match string // MatchIdentifier, MatchLandingPage or MatchDownloadURL
	Key   string // the shared value: the identifier, the landingPage, or the downloadURL set's SHA-256 (hex)
	Kept  DuplicateSide
	Held  DuplicateSide
	// FirstJobID is the job that found the pair ("" once that job is deleted with its source);
	// FirstSeenAt is when. A pair whose sides swap (a precedence change) keeps both.
	FirstJobID  string
	FirstSeenAt time.Time
}

// DuplicateSide is one dataset of a CrossSourceDuplicate, with its source and organization.
type DuplicateSide struct {
	SourceID         string
	SourceName       string
	OrganizationID   string // "" when the source belongs to no organization
	OrganizationName string
	DatasetID        string
	DatasetSlug      string
	Identifier       string
	RecordID         string // the harvest_record the dataset was written from
	Precedence       int    // the source's Precedence
}

// CrossSourceDuplicateListParams filters and pages CrossSourceDuplicateList; empty fields do not
// filter.
type CrossSourceDuplicateListParams struct {
	// SourceID keeps the pairs where the source is on either side.
	SourceID string
	// OrganizationID keeps the pairs where a source of the organization is on either side.
	OrganizationID string
	// JobID keeps the pairs that job found (FirstJobID).
	JobID string
	// HeldSourceID keeps the pairs whose held dataset is the source's.
	HeldSourceID string
	PageParams
}

// DuplicateCandidate is a dataset of another source that shares a key with a dataset SYNC
// writes (DatasetDuplicateFind).
type DuplicateCandidate struct {
	DatasetID  string
	SourceID   string
	SourceName string
	Identifier string
	Slug       string
	Precedence int    // its source's precedence
	Match      string // the key it shares (Match*); the first of identifier, landingPage, downloadURL
	Key        string // the shared value
	// Live is true for a live dataset; false for one held against the dataset being written.
	Live bool
	// Outranks is true when this dataset ranks above the dataset being written on the shared
	// key, so that it is the one to stay live: its source's precedence is higher, or equal and
	// that source published a dataset with the key first (DatasetDuplicateFind). Set by
	// DatasetDuplicateFind only.
	Outranks bool
}

// DatasetDuplicateFindParams names a dataset (its id, source and keys) whose cross-source
// duplicates are looked up; empty keys match nothing.
type DatasetDuplicateFindParams struct {
	DatasetID       string
	SourceID        string
	Identifier      string
	LandingPage     string
	DownloadURLsSHA string
}

// DatasetDuplicateKeepParams makes a dataset the live one of its duplicates.
type DatasetDuplicateKeepParams struct {
	DatasetID string
	JobID     string // the job whose SYNC decided it: the FirstJobID of new pairs
}

// DatasetHoldParams holds a dataset against another.
type DatasetHoldParams struct {
	KeptID string
	HeldID string
	Match  string // Match*
	Key    string
	JobID  string // the job whose SYNC decided it: the FirstJobID of a new pair
}

// DatasetDuplicateUnpairParams names the source whose pairs by a shared key are ended, and how
// many at most per call.
type DatasetDuplicateUnpairParams struct {
	SourceID string
	Limit    int
}
