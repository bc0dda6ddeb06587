package store

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/harvester-dev/harvester/harvest"
)

// Organization is an organization row: who publishes a set of harvest sources.
type Organization struct {
	ID        string
	Name      string
	Slug      string
	CreatedAt time.Time
}

// Source is a harvest_source row.
type Source struct {
	ID                    string
	OrganizationID        string // empty when the source belongs to no organization
	Name                  string
	URL                   string
	SourceType            harvest.SourceType
	SchemaType            harvest.SchemaType
	Frequency             harvest.Frequency
	NotificationEmails    []string
	NotificationFrequency harvest.NotificationFrequency
	NextRunAt             *time.Time // nil for manual sources
	CollectionParentURL   string     // a waf-collection's parent record; "" otherwise
	// WAFTimeZone is the IANA time zone name of a WAF's listing dates where the listing names
	// none (harvest.ParseWAFTimeZone); "" is UTC.
	WAFTimeZone string
	// Accept is the Accept header sent for the source's documents (FDK's acceptHeaderValue,
	// e.g. "text/turtle"); "" sends the fetch default.
	Accept string
	// AuthHeader is a secret header sent with the source's requests, to its own host only; nil
	// when there is none. Never log it or return its value from the API.
	AuthHeader *AuthHeader
	// Options are the source type's own settings by name (an rdf source's shacl_profile and
	// languages, …); nil when there are none.
	Options map[string]string
	// Precedence ranks the source in a cross-source duplicate pair (CrossSourceDuplicate): the
	// source with the higher precedence keeps the live dataset; at equal precedence, the source
	// that first published a dataset with the shared key does. 0 by default; an organization's own source should rank above an
	// aggregator (e.g. an aggregator at -10).
	Precedence int
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// AuthHeader is a source's secret request header (FDK's authHeader{name, value}), e.g.
// {Authorization, "Bearer …"}. String masks the value so that a logged source shows none.
type AuthHeader struct {
	Name  string
	Value string
}

// String is the header with its value masked.
func (a AuthHeader) String() string { return a.Name + ": ********" }

// GoString masks the value under %#v too.
func (a AuthHeader) GoString() string {
	return "store.AuthHeader{Name: " + strconv.Quote(a.Name) + ", Value: \"********\"}"
}

// HarvestJob is a harvest_job row. Counts are records; Expected is nil until the listing completed.
type HarvestJob struct {
	ID         string
	SourceID   string
	JobType    harvest.JobType
	Status     harvest.JobStatus
	CreatedAt  time.Time
	FinishedAt *time.Time
	harvest.Counts
	Settled  int  // outcomes counted so far
	Expected *int // nil until the listing completed
	Redrives int  // how often the scheduler re-drove the job after it stopped making progress
}

// MayFinish says whether JobFinish could finish the job whose row an OutcomeSettleBatch
// returned (read after the batch, in its transaction): it is in progress with its expected
// count known and reached. Otherwise JobFinish would change nothing. The settle batches of a
// job commit one at a time (each locks the job's row), so the batch that settles its last
// outcome sees the count reached, and the message that sets the expected count tries
// JobFinish itself. A nil row (none returned) may finish: JobFinish says. Used by the job
// aggregator (stages/report) and by SYNC, which settles its records itself and tells the
// aggregator only when this holds.
func (j *HarvestJob) MayFinish() bool {
	return j == nil || j.Status == harvest.JobInProgress && j.Expected != nil && j.Settled >= *j.Expected
}

// HarvestRecord is a harvest_record row: one record's passage through one job.
type HarvestRecord struct {
	ID              string
	JobID           string
	SourceID        string
	Identifier      string
	Action          harvest.Action
	SourceHash      string
	SourceRaw       string
	SourceTransform json.RawMessage // DCAT-US made by TRANSFORM; nil when the record was DCAT-US
	Status          harvest.RecordStatus
	SchemaType      harvest.SchemaType // the schema the record was checked against; "" for deletes
	CreatedAt       time.Time
}

// RecordError is a harvest_record_error row.
type RecordError struct {
	JobID      string
	RecordID   string // empty when the record never got a harvest_record row
	Identifier string
	Type       string
	Message    string
	Severity   harvest.Severity
	// CarriedFromJobID is the earlier job that found the problem, when this job carried the
	// row over (OutcomeSettleParams.CarriedFromRecordID): the record was unchanged since, so
	// it was not validated again. RecordID is then the record of that job. Empty when this job
	// found it.
	CarriedFromJobID string
}

// RecordErrorCount is how many record errors of one type and severity a job has.
type RecordErrorCount struct {
	Type     string
	Severity harvest.Severity
	Count    int
}

// JobCount is how many jobs of one status and type there are.
type JobCount struct {
	Status  harvest.JobStatus
	JobType harvest.JobType
	Count   int
}

// JobError is a harvest_job_error row.
type JobError struct {
	JobID     string
	Type      string
	Message   string
	CreatedAt time.Time
}

// JobErrorAddParams is a job-level row written without changing the job's status.
type JobErrorAddParams struct {
	JobID   string
	Type    string // a harvest.Type* constant, e.g. CrossSourceDuplicateReleased
	Message string
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

// JobIdentifierAddBatchParams records several listed identifiers of one job.
type JobIdentifierAddBatchParams struct {
	JobID       string
	Identifiers []string
}

// JobIdentifierClaimBatchParams claims several listed identifiers of one job for one listing
// attempt (store.Store JobIdentifierClaimBatch).
type JobIdentifierClaimBatchParams struct {
	JobID string
	// Listing tells one listing attempt of the job from another: a random number, not 0 (the
	// rows JobIdentifierAdd writes).
	Listing     int64
	Identifiers []string
	Positions   []int // 0-based, one per identifier
}

// JobInsertParams starts a job.
type JobInsertParams struct {
	ID       string // optional; generated when empty
	SourceID string
	JobType  harvest.JobType
	Queued   bool // insert as new, to be started by JobStartQueued; else in_progress at once
}

// JobListParams filters and pages jobs; empty fields do not filter.
type JobListParams struct {
	SourceID string
	Status   harvest.JobStatus
	JobType  harvest.JobType
	PageParams
}

// JobListOrphanedParams selects in_progress jobs whose heartbeat is older than Before.
type JobListOrphanedParams struct {
	Before time.Time
}

// JobRedriveParams selects the orphaned job to re-drive: in_progress, heartbeat older than
// Before, re-driven fewer than Max times.
type JobRedriveParams struct {
	JobID  string
	Before time.Time
	Max    int
}

// JobStartQueuedParams caps the jobs in progress.
type JobStartQueuedParams struct {
	MaxInProgress int
}

// LeaderParams names the scheduler that wants to lead.
type LeaderParams struct {
	Holder string        // unique per scheduler process
	TTL    time.Duration // SQLite lease length; default 30 s
}

// Session is a signed-in web UI operator's session (package web). Its ID is a digest of the
// secret its cookie carries, never the secret itself.
type Session struct {
	ID        string
	ExpiresAt time.Time
}

// SessionInsertParams is a new session.
type SessionInsertParams struct {
	ID        string    // unique; at most 200 bytes
	ExpiresAt time.Time // SessionGet answers ErrNotFound from then on
}

// PageParams pages a list: at most Limit rows (0: the backend's default of 100) after Offset.
type PageParams struct {
	Limit  int
	Offset int
}

// DefaultLimit is the page size of a PageParams whose Limit is 0.
const DefaultLimit = 100

// Bounds returns the page's LIMIT and OFFSET: a Limit of 0 or less is DefaultLimit, a negative
// Offset is 0.
func (p PageParams) Bounds() (limit, offset int) {
	limit = p.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	return limit, max(p.Offset, 0)
}

// OrganizationInsertParams creates an organization.
type OrganizationInsertParams struct {
	Name string
	Slug string
}

// OrganizationUpdateParams replaces an organization's fields.
type OrganizationUpdateParams struct {
	ID   string
	Name string
	Slug string
}

// RecordErrorListParams pages a job's record errors.
type RecordErrorListParams struct {
	JobID string
	// Severity, when set, lists (and counts) only the rows of that severity; "" is every row.
	Severity harvest.Severity
	// Message, when set, lists (and counts) only the rows of that exact message.
	Message string
	PageParams
}

// RecordListParams selects a page of a job's records, of one action when Action is set.
type RecordListParams struct {
	JobID  string
	Action harvest.Action
	PageParams
}

// RecordErrorMessagesParams asks for a job's record error rows of one severity grouped by
// message: at most Limit groups, each with Examples identifiers.
type RecordErrorMessagesParams struct {
	JobID    string
	Severity harvest.Severity
	Limit    int
	Examples int
}

// RecordErrorMessage is one group of RecordErrorMessages: the rows of one type and message.
type RecordErrorMessage struct {
	Type     string
	Message  string
	Severity harvest.Severity
	Count    int
	Examples []RecordErrorExample // the group's first rows, by identifier
}

// RecordErrorExample is one row of a RecordErrorMessage group: the record's identifier, and its
// harvest_record id ("" when the record never got a row).
type RecordErrorExample struct {
	Identifier string
	RecordID   string
}

// SourceInsertParams creates a source. Empty Frequency means manual, empty
// NotificationFrequency means on_error.
type SourceInsertParams struct {
	OrganizationID        string
	Name                  string
	URL                   string
	SourceType            harvest.SourceType
	SchemaType            harvest.SchemaType
	Frequency             harvest.Frequency
	NotificationEmails    []string
	NotificationFrequency harvest.NotificationFrequency
	CollectionParentURL   string            // waf-collection sources only
	WAFTimeZone           string            // waf and waf-collection sources: an IANA zone name; "" is UTC
	Accept                string            // the Accept header for the source's documents; "" for the default
	AuthHeader            *AuthHeader       // nil for none (SourceUpdate: nil removes it)
	Options               map[string]string // the source type's settings; nil or empty for none
	Precedence            int               // Source.Precedence; 0 by default
}

// SourceUpdateParams replaces a source's editable fields.
type SourceUpdateParams struct {
	ID string
	SourceInsertParams
}

// SourceListParams filters and pages sources.
type SourceListParams struct {
	OrganizationID string
	PageParams
}

// SourceSummary is a source with its live dataset count, its newest job (by creation), its last
// run, last success and health (SourceHealth defines them).
type SourceSummary struct {
	Source
	DatasetCount int
	// HeldCount is how many of its datasets are held as cross-source duplicates (not live).
	HeldCount int
	// LastJob is the source's newest job of any type; nil when it has none.
	LastJob *JobSummary
	// LastRun is the source's newest finished harvest or force_harvest job (by finish); nil
	// when it has none.
	LastRun *JobSummary
	// LastSuccess is when the newest successful run (see SourceHealth) finished; nil for none.
	LastSuccess *time.Time
	Health      SourceHealth
}

// JobSummary is what a source list shows of a job.
type JobSummary struct {
	ID         string
	JobType    harvest.JobType
	Status     harvest.JobStatus
	CreatedAt  time.Time
	FinishedAt *time.Time
	// Errored and Warned are the job's errored and warned record counts (LastRun only).
	Errored, Warned int
}

// SourceSummaryListParams filters, orders and pages SourceSummaryList; empty fields do not
// filter.
type SourceSummaryListParams struct {
	OrganizationID string
	LastJobStatus  harvest.JobStatus // the status of the source's newest job
	Name           string            // a part of the name, any case (ASCII letters)
	Health         SourceHealth
	Sort           SourceSort // default SortName
	// Now is the time the health is judged at (stale or not); default time.Now().
	Now time.Time
	PageParams
}

// RecordHistoryParams names a record key within a source, and a page of its history.
type RecordHistoryParams struct {
	SourceID   string
	Identifier string
	PageParams
}

// SourceListDueParams asks which sources are due at Now.
type SourceListDueParams struct {
	Now time.Time
}

// SourceScheduleNextParams sets when a source runs next.
type SourceScheduleNextParams struct {
	SourceID  string
	NextRunAt *time.Time
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
	// SourceTransform, when set with RecordID and Status, is the DCAT-US that TRANSFORM made
	// of the record: it becomes the record's source_transform together with its status (nil
	// keeps what the row has). A record that goes wrong after TRANSFORM (invalid, or a failed
	// SYNC) keeps it too.
	SourceTransform json.RawMessage
	// CarriedFromRecordID, when set, is a harvest_record of an earlier job whose error rows
	// the outcome carries: when the outcome is new, that record's own error rows (those its
	// job found, not rows carried into other jobs) are copied into this job under Key and
	// Identifier, each with the record's id and CarriedFromJobID set to the record's job,
	// after Errors. A record id that is unknown or not a UUID copies nothing.
	CarriedFromRecordID string
	// CarriedFromJobID, when set, is an earlier job whose error rows under the same Key the
	// outcome carries (a 304 Not Modified job carries the errored records of the job whose
	// validators it sent): when the outcome is new they are copied into this job, keeping
	// their identifier and record, with CarriedFromJobID set to the job that found them (a row
	// that job had carried keeps its origin). An unknown job copies nothing.
	CarriedFromJobID string
}

// SettledOutcome is the OutcomeSettleParams of the settled outcome s (a harvest.Settled of kind
// harvest.SettledOutcome), field for field: what the job aggregator settles for each outcome
// message, and EXTRACT for an unchanged record of a claimed listing it settles itself.
func SettledOutcome(s *harvest.Settled) *OutcomeSettleParams {
	return &OutcomeSettleParams{JobID: s.JobID, Key: s.Key, Identifier: s.Identifier,
		RecordID: s.RecordID, Outcome: s.Outcome, Status: s.Status, Validated: s.Validated, Errors: s.Errors,
		CarriedFromRecordID: s.CarriedFromRecordID, CarriedFromJobID: s.CarriedFromJobID,
		SourceTransform: json.RawMessage(s.Transformed)}
}

// OutcomeSettled is the result of one outcome of OutcomeSettleBatch: the job after the batch
// and whether the outcome was new, or the item's error (then Job is nil).
type OutcomeSettled struct {
	Job   *HarvestJob
	Fresh bool
	Err   error
}

// OutcomeReopenParams names the errored key of a job to re-open for a replay.
type OutcomeReopenParams struct {
	JobID string
	Key   string
	// Validated says whether the errored outcome counted as validated, for outcomes settled
	// before migration 006 (which did not record it); later outcomes keep their own flag.
	Validated bool
	// StaleBefore: a key re-opened before this time counts as no longer in flight (its replay
	// was lost, e.g. the replaying process died before publishing) and is re-opened again. Zero:
	// a re-opened key is never re-opened before its outcome settles.
	StaleBefore time.Time
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
	SchemaType harvest.SchemaType // the schema VALIDATE checks it against
	// SHACLProfile is the SHACL profile VALIDATE checks a dcat-ap record with: the source's
	// shacl_profile, "" resolved to the default profile's name ("none": nothing is checked);
	// "" for other schema types.
	SHACLProfile string
	// Replay writes the row although its job has finished (a record replayed after a stage
	// gave up on it, harvest.Record.Replay); otherwise the row is written only while the job is
	// new or in progress (ErrJobEnded), so that a job that ended leaves no pending row behind.
	Replay bool
}

// RecordLatestParams names a record key within a source.
type RecordLatestParams struct {
	SourceID   string
	Identifier string
}

// SourceEnsureParams finds or creates a source by URL.
type SourceEnsureParams struct {
	Name                string
	URL                 string
	SourceType          harvest.SourceType
	SchemaType          harvest.SchemaType
	CollectionParentURL string // waf-collection sources only
	// WAFTimeZone replaces the source's WAF time zone when not empty; "" keeps the stored one.
	WAFTimeZone string
	// Accept, AuthHeader and Options replace the source's when given (not empty, not nil);
	// otherwise an existing source keeps its own.
	Accept     string
	AuthHeader *AuthHeader
	Options    map[string]string
}

// Resource names one harvested resource as FDK's report does: its fdkId (ResourceIDs) and
// its URI (a DCAT-AP dataset or catalog IRI; for DCAT-US and ISO records, the identifier).
// It is the report's harvest.Resource.
type Resource = harvest.Resource

// CatalogChecksum is the checksum of one catalog graph (a dcat:Catalog of an rdf source) that
// a job saw: its IRI, its fdkId and the checksum (dcatap's hash of its canonical graph).
type CatalogChecksum struct {
	URI      string
	FdkID    string
	Checksum string
}

// CatalogChecksumsSetParams saves the catalogs a job saw in its source.
type CatalogChecksumsSetParams struct {
	SourceID string
	JobID    string
	Catalogs []CatalogChecksum
	// Force counts every catalog of Catalogs as changed (a force_harvest), not only the new
	// ones and those whose checksum differs.
	Force bool
}

// OutcomeIdentifiersParams selects the identifiers of a job's records by outcome.
type OutcomeIdentifiersParams struct {
	JobID    string
	Outcomes []harvest.Outcome
	// After, when not "", pages the list: only the identifiers after it (in the list's order)
	// are returned.
	After string
	// Limit, when over 0, returns at most that many identifiers (one page).
	Limit int
}
