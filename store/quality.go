package store

import (
	"encoding/json"
	"time"
)

// The scopes of a quality aggregate (QualityAggregate.Scope).
const (
	QualityScopeSource       = "source"       // ScopeID: a harvest source's id
	QualityScopeOrganization = "organization" // ScopeID: an organization's id
	QualityScopeCatalog      = "catalog"      // ScopeID: "" (the whole catalog)
)

// QualityAggregate is a quality_aggregate row: the MQA summary of a source's, an
// organization's or the whole catalog's live datasets as it stood when the job JobID finished
// (quality/assess.RecordJob computes and writes them). The rows are the quality's history: they
// are never updated but by writing the same job's again, and never deleted, neither by the
// retention (JobPrune, RecordPrune) nor with their job; a deleted source's rows stay.
type QualityAggregate struct {
	Scope      string
	ScopeID    string
	JobID      string
	SourceID   string    // the source of JobID
	ComputedAt time.Time // UTC
	Datasets   int
	Mean       float64 // 0–405
	Rating     string  // quality.Rating
	// LinksURLs and LinksBroken count the distinct distribution URLs and those of them whose
	// stored check found them broken (an organization's and the catalog's: the sum over their
	// sources, a URL shared by two sources counted twice).
	LinksURLs   int
	LinksBroken int
	// Summary is the whole summary as JSON (quality/assess.Source); nil when the read did
	// not ask for it (QualityAggregateHistoryParams.Summaries).
	Summary json.RawMessage
	// OrganizationID and SourceName are the current organization ("" when it has none) and
	// name of the source ScopeID of a source row read by QualityAggregateLatest; empty
	// otherwise.
	OrganizationID string
	SourceName     string
}

// QualityAggregateHistoryParams selects the rows QualityAggregateHistory returns: those of
// Scope and ScopeID, oldest first, the newest Limit of them when Limit > 0.
type QualityAggregateHistoryParams struct {
	Scope   string
	ScopeID string
	Limit   int
	// Summaries reads each row's Summary too (several kB a row); without it Summary is nil.
	Summaries bool
}
