package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// JobInsert implements store.Store.
func (s *Store) JobInsert(ctx context.Context, p *store.JobInsertParams) (*store.Job, error) {
	id, status := sqlstore.JobInsertValues(p)
	return scan.Job(s.q.QueryRow(ctx, `
		INSERT INTO harvest_job (id, harvest_source_id, job_type, status, heartbeat_at)
		VALUES ($1, $2, $3, $4, CASE WHEN $4 = 'in_progress' THEN now() END)
		RETURNING `+sqlstore.JobColumns, id, p.SourceID, p.JobType, status))
}

// JobList implements store.Store.
func (s *Store) JobList(ctx context.Context, p *store.JobListParams) ([]*store.Job, int, error) {
	const filter = `($1::uuid IS NULL OR harvest_source_id = $1) AND ($2::text IS NULL OR status = $2)
		AND ($3::text IS NULL OR job_type = $3)`
	args := []any{nullable(p.SourceID), nullable(string(p.Status)), nullable(string(p.JobType))}
	total, err := sqlstore.Count(ctx, s.q, `SELECT count(*) FROM harvest_job WHERE `+filter, args...)
	if err != nil {
		return nil, 0, err
	}
	limit, offset := p.Bounds()
	jobs, err := sqlstore.Collect(s.q.Query(ctx, `SELECT `+sqlstore.JobColumns+` FROM harvest_job WHERE `+filter+`
		ORDER BY date_created DESC, id DESC LIMIT $4 OFFSET $5`, append(args, limit, offset)...), scan.Job)
	return jobs, total, err
}

// JobGet implements store.Store.
func (s *Store) JobGet(ctx context.Context, jobID string) (*store.Job, error) {
	return scan.Job(s.q.QueryRow(ctx, `SELECT `+sqlstore.JobColumns+` FROM harvest_job WHERE id = $1`, jobID))
}

// JobFail implements store.Store.
func (s *Store) JobFail(ctx context.Context, p *store.JobFailParams) (*store.Job, error) {
	var job *store.Job
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		job, err = scan.Job(querier{tx}.QueryRow(ctx, `
			UPDATE harvest_job SET status = 'error', date_finished = now(),
				records_total = records_settled
			WHERE id = $1 AND status IN ('new', 'in_progress') RETURNING `+sqlstore.JobColumns, p.JobID))
		if err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `INSERT INTO harvest_job_error (harvest_job_id, type, message) VALUES ($1, $2, $3)`,
			p.JobID, p.Type, p.Message); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, fmt.Sprintf(sqlstore.SettlePendingRecords, "$1", "now()"), p.JobID)
		return err
	})
	job, _, err = sqlstore.JobChanged(job, interpretError(err), func() (*store.Job, error) { return s.JobGet(ctx, p.JobID) })
	return job, err
}

// JobFinish implements store.Store.
func (s *Store) JobFinish(ctx context.Context, jobID string) (*store.Job, bool, error) {
	job, err := scan.Job(s.q.QueryRow(ctx, `
		UPDATE harvest_job SET status = 'complete', date_finished = now(), records_total = records_settled
		WHERE id = $1 AND status = 'in_progress' AND records_expected IS NOT NULL
			AND records_settled >= records_expected
		RETURNING `+sqlstore.JobColumns, jobID))
	return sqlstore.JobChanged(job, err, func() (*store.Job, error) { return s.JobGet(ctx, jobID) })
}

// JobSetExpected implements store.Store.
func (s *Store) JobSetExpected(ctx context.Context, p *store.JobSetExpectedParams) (*store.Job, error) {
	return scan.Job(s.q.QueryRow(ctx, `UPDATE harvest_job SET records_expected = $2 WHERE id = $1 RETURNING `+sqlstore.JobColumns,
		p.JobID, p.Expected))
}

// JobIdentifierAdd implements store.Store.
func (s *Store) JobIdentifierAdd(ctx context.Context, p *store.JobIdentifierAddParams) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO harvest_job_identifier (harvest_job_id, identifier) VALUES ($1, $2)
		ON CONFLICT DO NOTHING`, p.JobID, p.Identifier)
	return interpretError(err)
}

// JobErrorList implements store.Store.
func (s *Store) JobErrorList(ctx context.Context, jobID string) ([]*store.JobError, error) {
	return sqlstore.Collect(s.q.Query(ctx, `SELECT harvest_job_id, type, message, date_created FROM harvest_job_error
		WHERE harvest_job_id = $1 ORDER BY id`, jobID), scan.JobError)
}
