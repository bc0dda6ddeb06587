package postgres

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

const jobColumns = `id, harvest_source_id, job_type, status, date_created, date_finished,
	records_total, records_added, records_updated, records_deleted, records_unchanged,
	records_errored, records_validated, records_settled, records_expected, redrives`

func scanJob(row pgx.Row) (*store.Job, error) {
	var j store.Job
	err := row.Scan(&j.ID, &j.SourceID, &j.JobType, &j.Status, &j.CreatedAt, &j.FinishedAt,
		&j.Total, &j.Added, &j.Updated, &j.Deleted, &j.Unchanged, &j.Errored, &j.Validated,
		&j.Settled, &j.Expected, &j.Redrives)
	if err != nil {
		return nil, interpretError(err)
	}
	return &j, nil
}

// JobInsert implements store.Store.
func (s *Store) JobInsert(ctx context.Context, p *store.JobInsertParams) (*store.Job, error) {
	id := p.ID
	if id == "" {
		id = uuid.NewString()
	}
	status := harvest.JobInProgress
	if p.Queued {
		status = harvest.JobNew
	}
	return scanJob(s.pool.QueryRow(ctx, `
		INSERT INTO harvest_job (id, harvest_source_id, job_type, status, heartbeat_at)
		VALUES ($1, $2, $3, $4, CASE WHEN $4 = 'in_progress' THEN now() END)
		RETURNING `+jobColumns, id, p.SourceID, p.JobType, status))
}

// JobList implements store.Store.
func (s *Store) JobList(ctx context.Context, p *store.JobListParams) ([]*store.Job, int, error) {
	const filter = `($1::uuid IS NULL OR harvest_source_id = $1) AND ($2::text IS NULL OR status = $2)
		AND ($3::text IS NULL OR job_type = $3)`
	args := []any{nullable(p.SourceID), nullable(string(p.Status)), nullable(string(p.JobType))}
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM harvest_job WHERE `+filter, args...).Scan(&total); err != nil {
		return nil, 0, interpretError(err)
	}
	limit, offset := p.Bounds()
	rows, _ := s.pool.Query(ctx, `SELECT `+jobColumns+` FROM harvest_job WHERE `+filter+`
		ORDER BY date_created DESC, id DESC LIMIT $4 OFFSET $5`, append(args, limit, offset)...)
	jobs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.Job, error) { return scanJob(row) })
	return jobs, total, interpretError(err)
}

// JobGet implements store.Store.
func (s *Store) JobGet(ctx context.Context, jobID string) (*store.Job, error) {
	return scanJob(s.pool.QueryRow(ctx, `SELECT `+jobColumns+` FROM harvest_job WHERE id = $1`, jobID))
}

// JobFail implements store.Store.
func (s *Store) JobFail(ctx context.Context, p *store.JobFailParams) (*store.Job, error) {
	var job *store.Job
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		job, err = scanJob(tx.QueryRow(ctx, `
			UPDATE harvest_job SET status = 'error', date_finished = now(),
				records_total = records_settled
			WHERE id = $1 AND status IN ('new', 'in_progress') RETURNING `+jobColumns, p.JobID))
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO harvest_job_error (harvest_job_id, type, message) VALUES ($1, $2, $3)`,
			p.JobID, p.Type, p.Message)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return s.JobGet(ctx, p.JobID)
	}
	return job, interpretError(err)
}

// JobFinish implements store.Store.
func (s *Store) JobFinish(ctx context.Context, jobID string) (*store.Job, bool, error) {
	job, err := scanJob(s.pool.QueryRow(ctx, `
		UPDATE harvest_job SET status = 'complete', date_finished = now(), records_total = records_settled
		WHERE id = $1 AND status = 'in_progress' AND records_expected IS NOT NULL
			AND records_settled >= records_expected
		RETURNING `+jobColumns, jobID))
	if errors.Is(err, store.ErrNotFound) {
		job, err = s.JobGet(ctx, jobID)
		return job, false, err
	}
	return job, err == nil, err
}

// JobSetExpected implements store.Store.
func (s *Store) JobSetExpected(ctx context.Context, p *store.JobSetExpectedParams) (*store.Job, error) {
	return scanJob(s.pool.QueryRow(ctx, `UPDATE harvest_job SET records_expected = $2 WHERE id = $1 RETURNING `+jobColumns,
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
	rows, _ := s.pool.Query(ctx, `SELECT harvest_job_id, type, message, date_created FROM harvest_job_error
		WHERE harvest_job_id = $1 ORDER BY id`, jobID)
	errs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.JobError, error) {
		var e store.JobError
		return &e, row.Scan(&e.JobID, &e.Type, &e.Message, &e.CreatedAt)
	})
	return errs, interpretError(err)
}

// errJobFinished rolls back the settling of an outcome that arrived after its job ended.
var errJobFinished = errors.New("job already finished")

// OutcomeSettle implements store.Store.
func (s *Store) OutcomeSettle(ctx context.Context, p *store.OutcomeSettleParams) (*store.Job, bool, error) {
	var job *store.Job
	fresh := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO harvest_job_outcome (harvest_job_id, key, outcome) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, p.JobID, p.Key, p.Outcome)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		col := map[harvest.Outcome]string{
			harvest.OutcomeAdded: "records_added", harvest.OutcomeUpdated: "records_updated",
			harvest.OutcomeDeleted: "records_deleted", harvest.OutcomeUnchanged: "records_unchanged",
			harvest.OutcomeErrored: "records_errored",
		}[p.Outcome]
		validated := 0
		if p.Validated {
			validated = 1
		}
		// A finished job's counts are final: an outcome arriving after the end changes nothing.
		job, err = scanJob(tx.QueryRow(ctx, `UPDATE harvest_job SET records_settled = records_settled + 1,
			`+col+` = `+col+` + 1, records_validated = records_validated + $2, heartbeat_at = now()
			WHERE id = $1 AND status IN ('new', 'in_progress') RETURNING `+jobColumns, p.JobID, validated))
		if errors.Is(err, store.ErrNotFound) {
			return errJobFinished
		}
		if err != nil {
			return err
		}
		fresh = true
		var recordID *string
		if p.RecordID != "" {
			recordID = &p.RecordID
		}
		b := &pgx.Batch{}
		for _, e := range p.Errors {
			b.Queue(`INSERT INTO harvest_record_error (harvest_job_id, harvest_record_id, identifier, type, message, severity)
				VALUES ($1, $2, $3, $4, $5, $6)`, p.JobID, recordID, p.Identifier, e.Type, e.Message, e.Severity)
		}
		if recordID != nil && p.Status != "" {
			b.Queue(`UPDATE harvest_record SET status = $2, date_finished = now() WHERE id = $1`, p.RecordID, p.Status)
		}
		if b.Len() > 0 {
			return tx.SendBatch(ctx, b).Close()
		}
		return nil
	})
	if errors.Is(err, errJobFinished) {
		err = nil
	}
	if err != nil {
		return nil, false, interpretError(err)
	}
	if !fresh {
		job, err = s.JobGet(ctx, p.JobID)
	}
	return job, fresh, err
}
