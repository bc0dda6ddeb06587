package h2import

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/compare"
	"github.com/harvester-dev/harvester/store"
)

// Store is what an import writes (store.Store has it all).
type Store interface {
	DatasetImport(ctx context.Context, p *store.DatasetImportParams) (store.ImportResult, error)
	JobImport(ctx context.Context, p *store.JobImportParams) (store.ImportResult, error)
	OrganizationImport(ctx context.Context, p *store.OrganizationImportParams) (store.ImportResult, error)
	RecordImport(ctx context.Context, p *store.RecordImportParams) (store.ImportResult, error)
	SourceImport(ctx context.Context, p *store.SourceImportParams) (store.ImportResult, error)
}

var _ Store = store.Store(nil)

// Config is one import.
type Config struct {
	// From is the H2.0 Postgres database URL (postgres://user@host:5432/db). Required. Only
	// read: the import runs in a read-only transaction.
	From string
	// RewriteURLs maps an H2.0 harvest_source.url to the url the source gets in Harvester
	// (exact match); a url not in the map is kept.
	RewriteURLs map[string]string
}

// Tally counts what an import did to one kind of row.
type Tally struct {
	Created   int `json:"created"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
}

// Rows is how many rows the import read and wrote of this kind.
func (t Tally) Rows() int { return t.Created + t.Changed + t.Unchanged }

func (t *Tally) add(r store.ImportResult) {
	switch r {
	case store.ImportCreated:
		t.Created++
	case store.ImportChanged:
		t.Changed++
	default:
		t.Unchanged++
	}
}

// Report is what an import did.
type Report struct {
	Organizations Tally `json:"organizations"`
	Sources       Tally `json:"sources"`
	Jobs          Tally `json:"jobs"`
	Records       Tally `json:"records"`
	Datasets      Tally `json:"datasets"`
	// NoDataset counts the current H2.0 records not imported because they have no dataset row
	// (or their dataset row points at another record): the first harvest adds them.
	NoDataset int `json:"no_dataset"`
	// Errors are the rows that could not be imported, with the reason (at most maxErrors kept;
	// ErrorCount counts them all). The import goes on past them.
	Errors     []string `json:"errors"`
	ErrorCount int      `json:"error_count"`
}

const maxErrors = 100

func (r *Report) fail(format string, args ...any) {
	r.ErrorCount++
	if len(r.Errors) < maxErrors {
		r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
	}
}

// Changed is the number of rows the import created or updated: 0 when it ran again over an
// unchanged H2.0 database.
func (r *Report) Changed() int {
	n := 0
	for _, t := range []Tally{r.Organizations, r.Sources, r.Jobs, r.Records, r.Datasets} {
		n += t.Created + t.Changed
	}
	return n
}

// String is the report's summary line, e.g. "imported 1 organizations, 1 sources, 1696
// datasets; 0 changed (0 created, 0 updated, 3395 unchanged rows)".
func (r *Report) String() string {
	var created, updated, unchanged int
	for _, t := range []Tally{r.Organizations, r.Sources, r.Jobs, r.Records, r.Datasets} {
		created, updated, unchanged = created+t.Created, updated+t.Changed, unchanged+t.Unchanged
	}
	s := fmt.Sprintf("imported %d organizations, %d sources, %d datasets; %d changed (%d created, %d updated, %d unchanged rows)",
		r.Organizations.Rows(), r.Sources.Rows(), r.Datasets.Rows(), created+updated, created, updated, unchanged)
	if r.NoDataset > 0 {
		s += fmt.Sprintf("; %d current records without a dataset row not imported (the first harvest adds them)", r.NoDataset)
	}
	if r.ErrorCount > 0 {
		s += fmt.Sprintf("; %d rows failed", r.ErrorCount)
	}
	return s
}

// ErrConfig is a bad Config.
var ErrConfig = errors.New("h2import: bad config")

// Run imports the H2.0 database cfg.From into st and reports what it did. A row that cannot be
// imported (an unknown enum value, a slug or url taken by another row of st) is a Report error
// and the import goes on; Run's error is for a database that cannot be read or written at all
// (then the rows written so far stay, and running it again completes the import).
func Run(ctx context.Context, cfg Config, st Store) (*Report, error) {
	if cfg.From == "" {
		return nil, fmt.Errorf("%w: From (the H2.0 database URL) is required", ErrConfig)
	}
	conn, err := pgx.Connect(ctx, cfg.From)
	if err != nil {
		return nil, fmt.Errorf("connect to the H2.0 database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return nil, fmt.Errorf("begin a read-only transaction on the H2.0 database: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	im := &importer{tx: tx, st: st, cfg: cfg, report: &Report{}}
	if err := im.organizations(ctx); err != nil {
		return im.report, err
	}
	sources, err := im.sources(ctx)
	if err != nil {
		return im.report, err
	}
	for _, src := range sources {
		if err := im.source(ctx, src); err != nil {
			return im.report, err
		}
	}
	return im.report, nil
}

type importer struct {
	tx     pgx.Tx
	st     Store
	cfg    Config
	report *Report
}

func (im *importer) organizations(ctx context.Context) error {
	rows, err := im.tx.Query(ctx, `SELECT id, name, slug FROM organization ORDER BY id`)
	if err != nil {
		return fmt.Errorf("read H2.0 organizations: %w", err)
	}
	var orgs []store.OrganizationImportParams // organizations are few
	for rows.Next() {
		var o store.OrganizationImportParams
		if err := rows.Scan(&o.ID, &o.Name, &o.Slug); err != nil {
			rows.Close()
			return fmt.Errorf("read H2.0 organizations: %w", err)
		}
		orgs = append(orgs, o)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read H2.0 organizations: %w", err)
	}
	for _, o := range orgs {
		r, err := im.st.OrganizationImport(ctx, &o)
		if err := im.rowError(err, "organization %s (%s)", o.ID, o.Slug); err != nil {
			return err
		}
		if err == nil {
			im.report.Organizations.add(r)
		}
	}
	return nil
}

// rowError sorts a store error: nil for none; a row's own problem (a conflict, a missing
// reference, a malformed value) is reported and nil is returned, so the import goes on; any
// other error is returned, wrapped with the row's name.
func (im *importer) rowError(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	name := fmt.Sprintf(format, args...)
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		im.report.fail("%s: %v", name, err)
		return nil
	}
	return fmt.Errorf("import %s: %w", name, err)
}

// source is one H2.0 harvest source, as imported.
type source struct {
	id         string
	schemaType harvest.SchemaType
}

func (im *importer) sources(ctx context.Context) ([]source, error) {
	rows, err := im.tx.Query(ctx, `SELECT id, organization_id, name, url, COALESCE(notification_emails, '{}'),
		frequency::text, schema_type::text, source_type::text, notification_frequency::text,
		COALESCE(collection_parent_url, '') FROM harvest_source ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read H2.0 harvest sources: %w", err)
	}
	var ps []*store.SourceImportParams // sources are few (hundreds)
	var bad []string
	for rows.Next() {
		var p store.SourceImportParams
		var freq, schema, typ, notify string
		if err := rows.Scan(&p.ID, &p.OrganizationID, &p.Name, &p.URL, &p.NotificationEmails, &freq, &schema, &typ,
			&notify, &p.CollectionParentURL); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read H2.0 harvest sources: %w", err)
		}
		if err := sourceTypes(&p, freq, schema, typ, notify); err != nil {
			bad = append(bad, fmt.Sprintf("source %s (%s): %v", p.ID, p.URL, err))
			continue
		}
		if to, ok := im.cfg.RewriteURLs[p.URL]; ok {
			p.URL = to
		}
		if u, err := harvest.NormalizeURL(p.URL); err == nil {
			p.URL = u // as harvest --url finds it
		}
		if len(p.NotificationEmails) == 0 {
			p.NotificationEmails = nil
		}
		ps = append(ps, &p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read H2.0 harvest sources: %w", err)
	}
	for _, b := range bad {
		im.report.fail("%s", b)
	}
	var out []source
	for _, p := range ps {
		r, err := im.st.SourceImport(ctx, p)
		if err != nil {
			if err := im.rowError(err, "source %s (%s)", p.ID, p.URL); err != nil {
				return nil, err
			}
			continue // its records cannot be imported either
		}
		im.report.Sources.add(r)
		out = append(out, source{id: p.ID, schemaType: p.SchemaType})
	}
	return out, nil
}

// sourceTypes parses a source's H2.0 enum values into p.
func sourceTypes(p *store.SourceImportParams, freq, schema, typ, notify string) error {
	var err error
	if p.Frequency, err = harvest.ParseFrequency(freq); err != nil {
		return err
	}
	if p.SchemaType, err = harvest.ParseSchemaType(schema); err != nil {
		return err
	}
	if p.SourceType, err = harvest.ParseSourceType(typ); err != nil {
		return err
	}
	p.NotificationFrequency, err = harvest.ParseNotificationFrequency(notify)
	return err
}

// currentState selects a source's ($1) current records as H2.0 defines them: the newest success
// row of each (identifier, record_type), unless it is a delete.
const currentState = `SELECT * FROM (SELECT DISTINCT ON (identifier, record_type) * FROM harvest_record
	WHERE harvest_source_id = $1 AND status = 'success'
	ORDER BY identifier, record_type, date_created DESC, id) cur WHERE action IS DISTINCT FROM 'delete'`

// source imports one source's jobs, then its current records with their datasets.
func (im *importer) source(ctx context.Context, src source) error {
	if err := im.jobs(ctx, src); err != nil {
		return err
	}
	rows, err := im.tx.Query(ctx, `SELECT r.id, r.harvest_job_id, r.identifier, r.record_type::text,
		COALESCE(r.action::text, 'create'), COALESCE(r.source_hash, ''), COALESCE(r.source_raw, ''),
		r.source_transform::text, COALESCE(r.date_created, r.date_finished, now()),
		d.id, d.slug, d.dcat::text, d.last_harvested_date, d.type::text
		FROM (`+currentState+`) r LEFT JOIN dataset d ON d.harvest_record_id = r.id
		ORDER BY r.identifier, r.record_type`, src.id)
	if err != nil {
		return fmt.Errorf("read H2.0 records of source %s: %w", src.id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var rec store.RecordImportParams
		var recordType, action string
		var transform, dsID, slug, dcat, dsType *string
		var harvested *time.Time
		if err := rows.Scan(&rec.ID, &rec.JobID, &rec.Identifier, &recordType, &action, &rec.H2SourceHash,
			&rec.SourceRaw, &transform, &rec.CreatedAt, &dsID, &slug, &dcat, &harvested, &dsType); err != nil {
			return fmt.Errorf("read H2.0 records of source %s: %w", src.id, err)
		}
		if dsID == nil && recordType != "catalog_record" {
			im.report.NoDataset++
			continue
		}
		rec.SourceID, rec.SchemaType, rec.Action = src.id, src.schemaType, harvest.Action(action)
		if transform != nil {
			rec.SourceTransform = []byte(*transform)
		}
		rec.SourceHash = ourHash(src.schemaType, rec.SourceRaw)
		r, err := im.st.RecordImport(ctx, &rec)
		if err != nil {
			if err := im.rowError(err, "record %s (%s)", rec.ID, rec.Identifier); err != nil {
				return err
			}
			continue
		}
		im.report.Records.add(r)
		if dsID == nil {
			continue
		}
		ds := &store.DatasetImportParams{ID: *dsID, Slug: *slug, SourceID: src.id, Identifier: rec.Identifier,
			DCAT: []byte(*dcat), RecordID: rec.ID, LastHarvestedDate: rec.CreatedAt, RecordType: recordTypeOf(recordType)}
		if harvested != nil {
			ds.LastHarvestedDate = *harvested
		}
		r, err = im.st.DatasetImport(ctx, ds)
		if err != nil {
			if err := im.rowError(err, "dataset %s (%s)", ds.ID, ds.Slug); err != nil {
				return err
			}
			continue
		}
		im.report.Datasets.add(r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read H2.0 records of source %s: %w", src.id, err)
	}
	return nil
}

// jobs imports the H2.0 jobs of the source that wrote one of its current records.
func (im *importer) jobs(ctx context.Context, src source) error {
	rows, err := im.tx.Query(ctx, `SELECT j.id, COALESCE(j.job_type, 'harvest'), j.status::text,
		COALESCE(j.date_created, j.date_finished, now()), COALESCE(j.date_finished, j.date_created, now()),
		COALESCE(j.records_total, 0), COALESCE(j.records_added, 0), COALESCE(j.records_updated, 0),
		COALESCE(j.records_deleted, 0), COALESCE(j.records_ignored, 0), COALESCE(j.records_errored, 0),
		COALESCE(j.records_validated, 0), COALESCE(j.records_warned, 0)
		FROM harvest_job j WHERE j.id IN (SELECT harvest_job_id FROM (`+currentState+`) c)
		ORDER BY j.date_created, j.id`, src.id)
	if err != nil {
		return fmt.Errorf("read H2.0 jobs of source %s: %w", src.id, err)
	}
	var jobs []*store.JobImportParams // the jobs that wrote current records: few per source
	for rows.Next() {
		j := &store.JobImportParams{SourceID: src.id}
		var jobType, status string
		if err := rows.Scan(&j.ID, &jobType, &status, &j.CreatedAt, &j.FinishedAt, &j.Total, &j.Added, &j.Updated,
			&j.Deleted, &j.Unchanged, &j.Errored, &j.Validated, &j.Warned); err != nil {
			rows.Close()
			return fmt.Errorf("read H2.0 jobs of source %s: %w", src.id, err)
		}
		if j.JobType, err = harvest.ParseJobType(jobType); err != nil {
			j.JobType = harvest.JobHarvest
		}
		j.Status = harvest.JobStatus(status)
		if !j.Status.Finished() {
			j.Status = harvest.JobError // H2.0 left it unfinished; it will never finish here
		}
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read H2.0 jobs of source %s: %w", src.id, err)
	}
	for _, j := range jobs {
		r, err := im.st.JobImport(ctx, j)
		if err := im.rowError(err, "job %s", j.ID); err != nil {
			return err
		}
		if err == nil {
			im.report.Jobs.add(r)
		}
	}
	return nil
}

// ourHash is Harvester's source_hash of an H2.0 source_raw: COMPARE's SourceHash of a JSON
// record (of the sorted form H2.0 stores, so it matches the publisher's record only when its
// arrays were in order; the H2.0 hash covers the rest), SHA-256 of an XML record's bytes.
func ourHash(schema harvest.SchemaType, raw string) string {
	if schema.IsISO() || strings.HasPrefix(strings.TrimSpace(raw), "<") {
		sum := sha256.Sum256([]byte(raw))
		return hex.EncodeToString(sum[:])
	}
	h, err := compare.SourceHash([]byte(raw))
	if err != nil {
		return "" // H2.0 stored something that is not JSON: only H2.0's hash can match it
	}
	return h
}

// recordTypeOf maps H2.0's record_type enum to Harvester's record types.
func recordTypeOf(h2 string) string {
	switch h2 {
	case "data_service":
		return harvest.RecordTypeDataService
	case "catalog_record":
		return harvest.RecordTypeCatalogRecord
	case "data_series":
		return harvest.RecordTypeDatasetSeries
	}
	return harvest.RecordTypeDataset
}
