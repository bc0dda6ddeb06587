package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

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
		if _, err = tx.Exec(ctx, `INSERT INTO harvest_job_error (harvest_job_id, type, message) VALUES ($1, $2, $3)`,
			p.JobID, p.Type, p.Message); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, fmt.Sprintf(settlePendingRecords, "$1", "now()"), p.JobID)
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

// outcomeColumn is the harvest_job counter of each outcome.
var outcomeColumn = map[harvest.Outcome]string{
	harvest.OutcomeAdded: "records_added", harvest.OutcomeUpdated: "records_updated",
	harvest.OutcomeDeleted: "records_deleted", harvest.OutcomeUnchanged: "records_unchanged",
	harvest.OutcomeErrored: "records_errored",
}

// settleReopened replaces the outcome of a key re-opened for replay with p's, moving the job's
// counts, and deletes the key's old error rows. It returns nil (and changes nothing) when the
// key is not re-opened: then it has simply settled already.
func settleReopened(ctx context.Context, tx pgx.Tx, p *store.OutcomeSettleParams, col string) (*store.Job, error) {
	var old harvest.Outcome
	var oldValidated *bool
	err := tx.QueryRow(ctx, `SELECT outcome, validated FROM harvest_job_outcome
		WHERE harvest_job_id = $1 AND key = $2 AND replay_at IS NOT NULL FOR UPDATE`, p.JobID, p.Key).Scan(&old, &oldValidated)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `UPDATE harvest_job_outcome SET outcome = $3, validated = $4, replay_at = NULL
		WHERE harvest_job_id = $1 AND key = $2`, p.JobID, p.Key, p.Outcome, p.Validated); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM harvest_record_error WHERE harvest_job_id = $1 AND key = $2`,
		p.JobID, p.Key); err != nil {
		return nil, err
	}
	delta := 0
	if p.Validated {
		delta++
	}
	if oldValidated != nil && *oldValidated {
		delta--
	}
	set := "records_validated = records_validated + $2"
	if oldCol := outcomeColumn[old]; oldCol != col {
		set += ", " + oldCol + " = " + oldCol + " - 1, " + col + " = " + col + " + 1"
	}
	return scanJob(tx.QueryRow(ctx, `UPDATE harvest_job SET `+set+` WHERE id = $1 RETURNING `+jobColumns, p.JobID, delta))
}

// OutcomeReopen implements store.Store.
func (s *Store) OutcomeReopen(ctx context.Context, p *store.OutcomeReopenParams) (bool, error) {
	var staleBefore *time.Time
	if !p.StaleBefore.IsZero() {
		staleBefore = &p.StaleBefore
	}
	tag, err := s.pool.Exec(ctx, `UPDATE harvest_job_outcome SET replay_at = clock_timestamp(),
			validated = coalesce(validated, $3)
		WHERE harvest_job_id = $1 AND key = $2 AND outcome = 'errored'
			AND (replay_at IS NULL OR replay_at < $4)`, p.JobID, p.Key, p.Validated, staleBefore)
	if err != nil {
		return false, interpretError(err)
	}
	return tag.RowsAffected() == 1, nil
}

// OutcomeErroredStream implements store.Store.
func (s *Store) OutcomeErroredStream(ctx context.Context, jobID string, fn func(key string) error) error {
	rows, err := s.pool.Query(ctx, `SELECT key FROM harvest_job_outcome WHERE harvest_job_id = $1
		AND outcome = 'errored' ORDER BY key`, pgUUID(jobID))
	if err != nil {
		return interpretError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			return interpretError(err)
		}
		if err := fn(key); err != nil {
			return err
		}
	}
	return interpretError(rows.Err())
}

// OutcomeReopenedCount implements store.Store.
func (s *Store) OutcomeReopenedCount(ctx context.Context, jobID string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM harvest_job_outcome
		WHERE harvest_job_id = $1 AND replay_at IS NOT NULL`, jobID).Scan(&n)
	return n, interpretError(err)
}
