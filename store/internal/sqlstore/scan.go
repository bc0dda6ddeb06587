package sqlstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/harvester-dev/harvester/harvest"

	"github.com/harvester-dev/harvester/store"
)

// Scanner reads the store's row types from rows of the backends' column lists (jobColumns,
// sourceColumns and so on, in that order). Its fields give the Scan destination of the column
// types the two backends store differently: each returns a value that Scan fills and that
// sets *p from it.
type Scanner struct {
	Time     func(p *time.Time) any  // a NOT NULL time column
	NullTime func(p **time.Time) any // a nullable time column: nil for NULL
	Strings  func(p *[]string) any   // a list of strings (Postgres text[], SQLite JSON text)
}

// The column lists the scanners read, the same in both dialects (sourceColumns and
// recordErrorColumns are not: they differ in casts, so each backend keeps its own).
const (
	JobColumns = `id, harvest_source_id, job_type, status, date_created, date_finished,
	records_total, records_added, records_updated, records_deleted, records_unchanged,
	records_errored, records_validated, records_settled, records_expected, redrives, records_warned, records_held`
	DatasetColumns = `id, slug, harvest_source_id, identifier, dcat, harvest_record_id, last_harvested_date, record_type,
	COALESCE(CAST(duplicate_of AS TEXT), ''), COALESCE(landing_page, ''), COALESCE(download_urls_sha, '')`
	RecordColumns = `id, harvest_job_id, harvest_source_id, identifier, action, COALESCE(source_hash, ''),
	COALESCE(source_raw, ''), source_transform, status, COALESCE(schema_type, ''), date_created`
	OrganizationColumns = `id, name, slug, created_at`
)

// Job reads a harvest_job row (JobColumns).
func (s *Scanner) Job(row Row) (*store.HarvestJob, error) {
	var j store.HarvestJob
	err := row.Scan(&j.ID, &j.SourceID, &j.JobType, &j.Status, s.Time(&j.CreatedAt), s.NullTime(&j.FinishedAt),
		&j.Total, &j.Added, &j.Updated, &j.Deleted, &j.Unchanged, &j.Errored, &j.Validated,
		&j.Settled, &j.Expected, &j.Redrives, &j.Warned, &j.Held)
	if err != nil {
		return nil, err
	}
	return &j, nil
}

// JobError reads a harvest_job_error row (harvest_job_id, type, message, date_created).
func (s *Scanner) JobError(row Row) (*store.JobError, error) {
	var e store.JobError
	if err := row.Scan(&e.JobID, &e.Type, &e.Message, s.Time(&e.CreatedAt)); err != nil {
		return nil, err
	}
	return &e, nil
}

// JobFetch reads a harvest_job row's fetch columns.
func (s *Scanner) JobFetch(row Row) (*store.JobFetchRow, error) {
	var r store.JobFetchRow
	err := row.Scan(&r.JobID, &r.JobType, &r.Status, &r.URL, &r.SchemaType, &r.ETag, &r.LastModified, &r.NotModified, &r.GraphHash)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// Source reads a harvest_source row; no notification e-mails is a nil list, no options a nil
// map, no auth header nil. The backends' sourceColumns end with accept, auth_header_name,
// auth_header_value and options as text ("" for NULL), then precedence, created_at and updated_at.
func (s *Scanner) Source(row Row) (*store.Source, error) {
	var src store.Source
	var authName, authValue, options string
	err := row.Scan(&src.ID, &src.OrganizationID, &src.Name, &src.URL, &src.SourceType, &src.SchemaType,
		&src.Frequency, s.Strings(&src.NotificationEmails), &src.NotificationFrequency, s.NullTime(&src.NextRunAt),
		&src.CollectionParentURL, &src.WAFTimeZone, &src.Accept, &authName, &authValue, &options,
		&src.Precedence, s.Time(&src.CreatedAt), s.Time(&src.UpdatedAt))
	if err != nil {
		return nil, err
	}
	if authName != "" {
		src.AuthHeader = &store.AuthHeader{Name: authName, Value: authValue}
	}
	if options != "" {
		if err := json.Unmarshal([]byte(options), &src.Options); err != nil {
			return nil, fmt.Errorf("source %s: read options: %w", src.ID, err)
		}
		if len(src.Options) == 0 {
			src.Options = nil
		}
	}
	if len(src.NotificationEmails) == 0 {
		src.NotificationEmails = nil
	}
	return &src, nil
}

// Organization reads an organization row (OrganizationColumns).
func (s *Scanner) Organization(row Row) (*store.Organization, error) {
	var o store.Organization
	if err := row.Scan(&o.ID, &o.Name, &o.Slug, s.Time(&o.CreatedAt)); err != nil {
		return nil, err
	}
	return &o, nil
}

// Dataset reads a dataset row (DatasetColumns).
func (s *Scanner) Dataset(row Row) (*store.Dataset, error) {
	var d store.Dataset
	var dcat []byte
	err := row.Scan(&d.ID, &d.Slug, &d.SourceID, &d.Identifier, &dcat, &d.RecordID, s.Time(&d.LastHarvestedDate), &d.RecordType,
		&d.DuplicateOf, &d.LandingPage, &d.DownloadURLsSHA)
	if err != nil {
		return nil, err
	}
	d.DCAT = dcat
	return &d, nil
}

// Record reads a harvest_record row (RecordColumns); a NULL source_transform is a nil SourceTransform.
func (s *Scanner) Record(row Row) (*store.HarvestRecord, error) {
	var r store.HarvestRecord
	var transform []byte // nil when NULL
	err := row.Scan(&r.ID, &r.JobID, &r.SourceID, &r.Identifier, &r.Action, &r.SourceHash, &r.SourceRaw,
		&transform, &r.Status, &r.SchemaType, s.Time(&r.CreatedAt))
	if err != nil {
		return nil, err
	}
	r.SourceTransform = transform
	return &r, nil
}

// RecordError reads a harvest_record_error row.
func (s *Scanner) RecordError(row Row) (*store.RecordError, error) {
	var e store.RecordError
	if err := row.Scan(&e.JobID, &e.RecordID, &e.Identifier, &e.Type, &e.Message, &e.Severity, &e.CarriedFromJobID); err != nil {
		return nil, err
	}
	return &e, nil
}

// RecordCompare reads a row of a backend's recordCompareSQL: the key's own record's job,
// action and status (NULL when it has none), whether a comparable record exists, its id,
// status, source_hash, action, schema_type, shacl_profile and h2_source_hash, whether the
// dataset is live, whether its duplicate standing is stale, and whether it moved.
func (s *Scanner) RecordCompare(row Row) (*store.RecordCompare, error) {
	var jobID, action, status, hash *string
	var latest store.RecordCompareLatest
	var hasLatest bool
	c := &store.RecordCompare{}
	err := row.Scan(&jobID, &action, &status, &hash, &hasLatest, &latest.ID, &latest.Status,
		&latest.SourceHash, &latest.Action, &latest.SchemaType, &latest.SHACLProfile, &latest.H2SourceHash, &c.DatasetLive,
		&c.DuplicateStale, &c.DuplicateMoved)
	if err != nil {
		return nil, err
	}
	if jobID != nil {
		c.Stored = &store.RecordCompareStored{JobID: *jobID, Action: harvest.Action(*action),
			Status: harvest.RecordStatus(*status)}
		if hash != nil {
			c.Stored.SourceHash = *hash
		}
	}
	if hasLatest {
		c.Latest = &latest
	}
	return c, nil
}

// extraRow scans a row's leading columns into a scanner's destinations and the rest into extra.
type extraRow struct {
	Row
	extra []any
}

func (r extraRow) Scan(dest ...any) error { return r.Row.Scan(append(dest, r.extra...)...) }
