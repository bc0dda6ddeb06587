package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// Dialect is what a backend gives Store: how its statements differ from the ones Store writes
// once, and how it runs a transaction. Store's own statements use $n placeholders, which both
// pgx and modernc.org/sqlite bind by number, and now() for the current time.
type Dialect struct {
	// Now is the SQL that stands for now() in Store's statements: now() itself on Postgres (the
	// transaction's start), the named parameter $now on SQLite.
	Now string
	// NowArgs are the arguments a statement with now() takes besides its own, called once per
	// statement or transaction, so that one transaction stamps one time: none on Postgres, $now
	// (the time as the backend stores it) on SQLite.
	NowArgs func() []any
	// InTx runs fn in a transaction over a Querier of it: committed when fn returns nil, rolled
	// back otherwise. Its error is fn's or the transaction's, through the backend's error
	// mapping.
	InTx func(ctx context.Context, fn func(Querier) error) error
	// Time is the argument of a time column: the time as the backend stores it.
	Time func(time.Time) any
	// Strings is the argument of a list-of-strings column (Postgres text[], SQLite JSON text).
	Strings func([]string) any
	// SQL are the statements that differ between the dialects by more than that.
	SQL SQL
}

// SQL are a dialect's own statements for Store's methods.
type SQL struct {
	// JobListFilter is JobList's WHERE condition on $1 harvest_source_id, $2 status and
	// $3 job_type, each NULL for any.
	JobListFilter string
	// DatasetStream selects DatasetColumns of every dataset of the source $1 ("" for all) in
	// id order.
	DatasetStream string
	// DatasetPageFilter is DatasetPage's condition on dataset d and its source s: $1 the
	// organization id, $2 the source id, $3 the least last_harvested_date, $4 the id the page
	// starts after; each NULL for any.
	DatasetPageFilter string
	// JobLock is the lock a transaction takes on the row of the job it ends in error
	// (JobFail), as a clause after SELECT ... FROM harvest_job WHERE id = $1: FOR UPDATE on
	// Postgres, where it waits for the statements in flight that hold JobOpenLock and makes
	// the later ones wait for the end; "" on SQLite, whose write transactions run one at a time.
	JobLock string
	// JobOpenLock is the lock a write of a job's record takes on the job's row in its JobOpen
	// check: FOR KEY SHARE on Postgres (which conflicts with JobLock's FOR UPDATE only, not
	// with the aggregator's FOR NO KEY UPDATE), "" on SQLite.
	JobOpenLock string
	// RowLock is the lock a read takes on the rows a transaction writes next, as a clause at the
	// end of the SELECT: FOR UPDATE on Postgres, "" on SQLite (its write transactions run one at
	// a time).
	RowLock string
	// SkipLocked is the clause at the end of a SELECT of rows a statement deletes that may be
	// left for later: FOR UPDATE SKIP LOCKED on Postgres (rows another transaction writes are
	// skipped, never waited for), "" on SQLite.
	SkipLocked string
}

// JobEnded is the error of a write of what (e.g. `dataset "x"`) that its JobOpen check refused:
// store.ErrNotFound (wrapped) when one of jobIDs does not exist, else store.ErrJobEnded
// (wrapped); a read error as it is.
func JobEnded(ctx context.Context, q Querier, what string, jobIDs ...string) error {
	for _, id := range jobIDs {
		n, err := Count(ctx, q, `SELECT count(*) FROM harvest_job WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("%w: job %s of %s", store.ErrNotFound, id, what)
		}
	}
	return fmt.Errorf("%w: %s not written (job %s)", store.ErrJobEnded, what, strings.Join(jobIDs, ", "))
}

// JobOpen is the condition that the job whose id is the SQL expression job is new or in
// progress, with lock (SQL.JobOpenLock) on its row: the writes of a job's records check it in
// the statement that writes, so that none lands after JobFail ended the job.
func JobOpen(job, lock string) string {
	return `EXISTS (SELECT 1 FROM harvest_job j WHERE j.id = ` + job + ` AND j.status IN ('new', 'in_progress')` + lock + `)`
}

// Store is the store.Store methods whose logic is the same on both backends, written once; each
// backend embeds it. It reaches the database through q and reads rows with scan.
type Store struct {
	q           Querier
	scan        *Scanner
	d           Dialect
	settleBatch func(context.Context, []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error)
}

// New is the Store over q, reading rows with scan, in dialect d. settleBatch is the backend's
// OutcomeSettleBatch, which OutcomeSettle calls with a batch of one.
func New(q Querier, scan *Scanner, d Dialect,
	settleBatch func(context.Context, []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error),
) Store {
	return Store{q: q, scan: scan, d: d, settleBatch: settleBatch}
}

// sql is stmt in the dialect: now() replaced by d.Now.
func (s *Store) sql(stmt string) string {
	if s.d.Now == "now()" {
		return stmt
	}
	return strings.ReplaceAll(stmt, "now()", s.d.Now)
}

// nullable is the argument of an optional text value: NULL for "".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// stamped is args followed by the dialect's arguments of now().
func (s *Store) stamped(now []any, args ...any) []any { return append(args, now...) }

// JobInsert implements store.Store.
func (s *Store) JobInsert(ctx context.Context, p *store.JobInsertParams) (*store.HarvestJob, error) {
	id, status := JobInsertValues(p)
	return s.scan.Job(s.q.QueryRow(ctx, s.sql(`
		INSERT INTO harvest_job (id, harvest_source_id, job_type, status, date_created, heartbeat_at)
		VALUES ($1, $2, $3, $4, now(), CASE WHEN $4 = 'in_progress' THEN now() END)
		RETURNING `+JobColumns), s.stamped(s.d.NowArgs(), id, p.SourceID, p.JobType, status)...))
}

// JobList implements store.Store.
func (s *Store) JobList(ctx context.Context, p *store.JobListParams) ([]*store.HarvestJob, int, error) {
	filter := s.d.SQL.JobListFilter
	args := []any{nullable(p.SourceID), nullable(string(p.Status)), nullable(string(p.JobType))}
	total, err := Count(ctx, s.q, `SELECT count(*) FROM harvest_job WHERE `+filter, args...)
	if err != nil {
		return nil, 0, err
	}
	limit, offset := p.Bounds()
	jobs, err := Collect(s.q.Query(ctx, `SELECT `+JobColumns+` FROM harvest_job WHERE `+filter+`
		ORDER BY date_created DESC, id DESC LIMIT $4 OFFSET $5`, append(args, limit, offset)...), s.scan.Job)
	return jobs, total, err
}

// JobGet implements store.Store.
func (s *Store) JobGet(ctx context.Context, jobID string) (*store.HarvestJob, error) {
	return s.scan.Job(s.q.QueryRow(ctx, `SELECT `+JobColumns+` FROM harvest_job WHERE id = $1`, jobID))
}

// JobFail implements store.Store: in one transaction, after the job's row is locked
// (SQL.JobLock), the job ends in error (when it is new or in progress), its error row is
// written and its pending records settle (settlePending).
func (s *Store) JobFail(ctx context.Context, p *store.JobFailParams) (*store.HarvestJob, error) {
	var job *store.HarvestJob
	err := s.d.InTx(ctx, func(tx Querier) error {
		now := s.d.NowArgs()
		if s.d.SQL.JobLock != "" {
			if _, err := tx.Exec(ctx, `SELECT 1 FROM harvest_job WHERE id = $1 `+s.d.SQL.JobLock, p.JobID); err != nil {
				return err
			}
		}
		var err error
		job, err = s.scan.Job(tx.QueryRow(ctx, s.sql(`
			UPDATE harvest_job SET status = 'error', date_finished = now(), records_held = `+heldCount+`
			WHERE id = $1 AND status IN ('new', 'in_progress') RETURNING `+JobColumns), s.stamped(now, p.JobID)...))
		if err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, s.sql(`INSERT INTO harvest_job_error (harvest_job_id, type, message, date_created)
			VALUES ($1, $2, $3, now())`), s.stamped(now, p.JobID, p.Type, p.Message)...); err != nil {
			return err
		}
		job, err = s.settlePending(ctx, tx, now, p)
		return err
	})
	job, _, err = JobChanged(job, err, func() (*store.HarvestJob, error) { return s.JobGet(ctx, p.JobID) })
	return job, err
}

// heldCount is how many datasets of the source of the job being updated (harvest_job) are held.
const heldCount = `(SELECT count(*) FROM dataset d WHERE d.harvest_source_id = harvest_job.harvest_source_id
	AND d.duplicate_of IS NOT NULL)`

// JobFinish implements store.Store.
func (s *Store) JobFinish(ctx context.Context, jobID string) (*store.HarvestJob, bool, error) {
	job, err := s.scan.Job(s.q.QueryRow(ctx, s.sql(`
		UPDATE harvest_job SET status = 'complete', date_finished = now(), records_total = records_settled,
			records_held = `+heldCount+`,
			records_warned = (SELECT count(DISTINCT e.key) FROM harvest_record_error e
				WHERE e.harvest_job_id = harvest_job.id AND e.severity = 'warning')
		WHERE id = $1 AND status = 'in_progress' AND records_expected IS NOT NULL
			AND records_settled >= records_expected
		RETURNING `+JobColumns), s.stamped(s.d.NowArgs(), jobID)...))
	return JobChanged(job, err, func() (*store.HarvestJob, error) { return s.JobGet(ctx, jobID) })
}

// JobCountHeld implements store.Store.
func (s *Store) JobCountHeld(ctx context.Context, jobID string) (*store.HarvestJob, error) {
	return s.scan.Job(s.q.QueryRow(ctx, `UPDATE harvest_job SET records_held = `+heldCount+`
		WHERE id = $1 AND status IN ('complete', 'error') RETURNING `+JobColumns, jobID))
}

// JobSetExpected implements store.Store.
func (s *Store) JobSetExpected(ctx context.Context, p *store.JobSetExpectedParams) (*store.HarvestJob, error) {
	return s.scan.Job(s.q.QueryRow(ctx, `UPDATE harvest_job SET records_expected = $2 WHERE id = $1 RETURNING `+JobColumns,
		p.JobID, p.Expected))
}

// JobIdentifierAdd implements store.Store.
func (s *Store) JobIdentifierAdd(ctx context.Context, p *store.JobIdentifierAddParams) error {
	_, err := s.q.Exec(ctx, `INSERT INTO harvest_job_identifier (harvest_job_id, identifier) VALUES ($1, $2)
		ON CONFLICT DO NOTHING`, p.JobID, p.Identifier)
	return err
}

// JobErrorAdd implements store.Store.
func (s *Store) JobErrorAdd(ctx context.Context, p *store.JobErrorAddParams) error {
	now := s.d.NowArgs()
	n, err := s.q.Exec(ctx, s.sql(`INSERT INTO harvest_job_error (harvest_job_id, type, message, date_created)
		SELECT id, CAST($2 AS TEXT), CAST($3 AS TEXT), now() FROM harvest_job WHERE id = $1`), s.stamped(now, p.JobID, p.Type, p.Message)...)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// JobErrorList implements store.Store.
func (s *Store) JobErrorList(ctx context.Context, jobID string) ([]*store.JobError, error) {
	return Collect(s.q.Query(ctx, `SELECT harvest_job_id, type, message, date_created FROM harvest_job_error
		WHERE harvest_job_id = $1 ORDER BY id`, jobID), s.scan.JobError)
}

// DatasetAny implements store.Store.
func (s *Store) DatasetAny(ctx context.Context) (bool, error) {
	var found bool
	err := s.q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM dataset WHERE duplicate_of IS NULL)`).Scan(&found)
	return found, err
}

// DatasetCount implements store.Store.
func (s *Store) DatasetCount(ctx context.Context, sourceID string) (int, error) {
	return Count(ctx, s.q, `SELECT count(*) FROM dataset WHERE harvest_source_id = $1 AND duplicate_of IS NULL`, sourceID)
}

// DatasetCountHeld implements store.Store.
func (s *Store) DatasetCountHeld(ctx context.Context, sourceID string) (int, error) {
	return Count(ctx, s.q, `SELECT count(*) FROM dataset WHERE harvest_source_id = $1 AND duplicate_of IS NOT NULL`, sourceID)
}

// DatasetDelete implements store.Store. With p.JobID the row is deleted only while the job is
// open (JobOpen, in the same statement); when nothing was deleted, a job that has ended is
// ErrJobEnded.
func (s *Store) DatasetDelete(ctx context.Context, p *store.DatasetDeleteParams) (bool, error) {
	if p.JobID == "" {
		n, err := s.q.Exec(ctx, `DELETE FROM dataset WHERE harvest_source_id = $1 AND identifier = $2`,
			p.SourceID, p.Identifier)
		return n > 0, err
	}
	n, err := s.q.Exec(ctx, `DELETE FROM dataset WHERE harvest_source_id = $1 AND identifier = $2
		AND `+JobOpen("$3", s.d.SQL.JobOpenLock), p.SourceID, p.Identifier, p.JobID)
	if err != nil || n > 0 {
		return n > 0, err
	}
	open, err := Count(ctx, s.q, `SELECT count(*) FROM harvest_job WHERE id = $1 AND status IN ('new', 'in_progress')`, p.JobID)
	if err == nil && open == 0 {
		err = JobEnded(ctx, s.q, fmt.Sprintf("the delete of dataset %q", p.Identifier), p.JobID)
	}
	return false, err
}

// DatasetFindElsewhere implements store.Store (the dataset_identifier index finds the rows).
func (s *Store) DatasetFindElsewhere(ctx context.Context, p *store.DatasetFindElsewhereParams) (*store.DatasetElsewhere, error) {
	d := &store.DatasetElsewhere{Identifier: p.Identifier}
	err := s.q.QueryRow(ctx, `SELECT d.harvest_source_id, s.name, d.slug FROM dataset d
		JOIN harvest_source s ON s.id = d.harvest_source_id
		WHERE d.identifier = $1 AND d.harvest_source_id <> $2 AND d.duplicate_of IS NULL
		ORDER BY s.name, s.id LIMIT 1`, p.Identifier, p.SourceID).Scan(&d.SourceID, &d.SourceName, &d.Slug)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// DatasetGet implements store.Store.
func (s *Store) DatasetGet(ctx context.Context, p *store.DatasetGetParams) (*store.Dataset, error) {
	return s.scan.Dataset(s.q.QueryRow(ctx, `SELECT `+DatasetColumns+` FROM dataset
		WHERE harvest_source_id = $1 AND identifier = $2`, p.SourceID, p.Identifier))
}

// DatasetList implements store.Store.
func (s *Store) DatasetList(ctx context.Context, p *store.DatasetListParams) ([]*store.Dataset, error) {
	return Collect(s.q.Query(ctx, `SELECT `+DatasetColumns+` FROM dataset WHERE harvest_source_id = $1
		AND duplicate_of IS NULL ORDER BY identifier`, p.SourceID), s.scan.Dataset)
}

// DatasetStream implements store.Store.
func (s *Store) DatasetStream(ctx context.Context, p *store.DatasetListParams, fn func(*store.Dataset) error) error {
	return Each(s.q.Query(ctx, s.d.SQL.DatasetStream, p.SourceID), s.scan.Dataset, fn)
}

// DatasetListUnseen implements store.Store.
func (s *Store) DatasetListUnseen(ctx context.Context, p *store.DatasetListUnseenParams, fn func(string) error) error {
	return Each(s.q.Query(ctx, `SELECT d.identifier FROM dataset d
		WHERE d.harvest_source_id = $1 AND NOT EXISTS (SELECT 1 FROM harvest_job_identifier i
			WHERE i.harvest_job_id = $2 AND i.identifier = d.identifier)
		ORDER BY d.identifier`, p.SourceID, p.JobID), String, fn)
}

// DatabaseID implements store.Store: the one row of database_identity (migration 019).
func (s *Store) DatabaseID(ctx context.Context) (string, error) {
	var id string
	if err := s.q.QueryRow(ctx, `SELECT id FROM database_identity`).Scan(&id); err != nil {
		return "", fmt.Errorf("read the database identity: %w", err)
	}
	return id, nil
}

// OutcomeSettle implements store.Store: a batch of one of the backend's OutcomeSettleBatch.
func (s *Store) OutcomeSettle(ctx context.Context, p *store.OutcomeSettleParams) (*store.HarvestJob, bool, error) {
	res, err := s.settleBatch(ctx, []*store.OutcomeSettleParams{p})
	if err != nil {
		return nil, false, err
	}
	return res[0].Job, res[0].Fresh, res[0].Err
}

// OutcomeReopenedCount implements store.Store.
func (s *Store) OutcomeReopenedCount(ctx context.Context, jobID string) (int, error) {
	return Count(ctx, s.q, `SELECT count(*) FROM harvest_job_outcome
		WHERE harvest_job_id = $1 AND replay_at IS NOT NULL`, jobID)
}

// RecordErrorSummary implements store.Store.
func (s *Store) RecordErrorSummary(ctx context.Context, jobID string) ([]*store.RecordErrorCount, error) {
	return Collect(s.q.Query(ctx, `SELECT type, severity, count(*) FROM harvest_record_error WHERE harvest_job_id = $1
		GROUP BY type, severity ORDER BY count(*) DESC, type, severity`, jobID), func(row Row) (*store.RecordErrorCount, error) {
		var c store.RecordErrorCount
		if err := row.Scan(&c.Type, &c.Severity, &c.Count); err != nil {
			return nil, err
		}
		return &c, nil
	})
}

// OrganizationDatasetCount implements store.Store.
func (s *Store) OrganizationDatasetCount(ctx context.Context, id string) (int, error) {
	return Count(ctx, s.q, `SELECT count(*) FROM dataset d JOIN harvest_source h ON h.id = d.harvest_source_id
		WHERE h.organization_id = $1 AND d.duplicate_of IS NULL`, id)
}

// JobCountsSince implements store.Store.
func (s *Store) JobCountsSince(ctx context.Context, since time.Time) ([]*store.JobCount, error) {
	return Collect(s.q.Query(ctx, `SELECT status, job_type, count(*) FROM harvest_job WHERE date_created >= $1
		GROUP BY status, job_type ORDER BY status, job_type`, s.d.Time(since)), func(row Row) (*store.JobCount, error) {
		var c store.JobCount
		if err := row.Scan(&c.Status, &c.JobType, &c.Count); err != nil {
			return nil, err
		}
		return &c, nil
	})
}

// JobErrorListSince implements store.Store.
func (s *Store) JobErrorListSince(ctx context.Context, since time.Time, limit int) ([]*store.JobError, error) {
	limit, _ = store.PageParams{Limit: limit}.Bounds()
	return Collect(s.q.Query(ctx, `SELECT harvest_job_id, type, message, date_created FROM harvest_job_error
		WHERE date_created >= $1 ORDER BY date_created DESC, harvest_job_id LIMIT $2`, s.d.Time(since), limit), s.scan.JobError)
}
