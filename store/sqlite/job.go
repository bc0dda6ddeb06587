package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

const jobColumns = `id, harvest_source_id, job_type, status, date_created, date_finished,
	records_total, records_added, records_updated, records_deleted, records_unchanged,
	records_errored, records_validated, records_settled, records_expected, redrives`

func scanJob(row interface{ Scan(...any) error }) (*store.Job, error) {
	var j store.Job
	var created string
	var finished sql.NullString
	var expected sql.NullInt64
	err := row.Scan(&j.ID, &j.SourceID, &j.JobType, &j.Status, &created, &finished,
		&j.Total, &j.Added, &j.Updated, &j.Deleted, &j.Unchanged, &j.Errored, &j.Validated,
		&j.Settled, &expected, &j.Redrives)
	if err != nil {
		return nil, interpretError(err)
	}
	if j.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	}
	if finished.Valid {
		t, err := parseTime(finished.String)
		if err != nil {
			return nil, err
		}
		j.FinishedAt = &t
	}
	if expected.Valid {
		n := int(expected.Int64)
		j.Expected = &n
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
	return scanJob(s.db.QueryRowContext(ctx, `
		INSERT INTO harvest_job (id, harvest_source_id, job_type, status, date_created, heartbeat_at)
		VALUES (?1, ?2, ?3, ?4, ?5, CASE WHEN ?4 = 'in_progress' THEN ?5 END) RETURNING `+jobColumns,
		id, p.SourceID, p.JobType, status, now()))
}

// JobList implements store.Store.
func (s *Store) JobList(ctx context.Context, p *store.JobListParams) ([]*store.Job, int, error) {
	const filter = `(?1 IS NULL OR harvest_source_id = ?1) AND (?2 IS NULL OR status = ?2)
		AND (?3 IS NULL OR job_type = ?3)`
	args := []any{nullable(p.SourceID), nullable(string(p.Status)), nullable(string(p.JobType))}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM harvest_job WHERE `+filter, args...).Scan(&total); err != nil {
		return nil, 0, interpretError(err)
	}
	limit, offset := p.Bounds()
	jobs, err := queryJobs(ctx, s.db, `SELECT `+jobColumns+` FROM harvest_job WHERE `+filter+`
		ORDER BY date_created DESC, id DESC LIMIT ?4 OFFSET ?5`, append(args, limit, offset)...)
	return jobs, total, err
}

// queryJobs runs a query of jobColumns rows on q (the database or a transaction).
func queryJobs(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]*store.Job, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, interpretError(err)
	}
	defer rows.Close()
	var out []*store.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, interpretError(rows.Err())
}

// JobGet implements store.Store.
func (s *Store) JobGet(ctx context.Context, jobID string) (*store.Job, error) {
	return scanJob(s.db.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM harvest_job WHERE id = ?`, jobID))
}

// JobFail implements store.Store.
func (s *Store) JobFail(ctx context.Context, p *store.JobFailParams) (*store.Job, error) {
	var job *store.Job
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		t := now()
		job, err = scanJob(tx.QueryRowContext(ctx, `
			UPDATE harvest_job SET status = 'error', date_finished = ?, records_total = records_settled
			WHERE id = ? AND status IN ('new', 'in_progress') RETURNING `+jobColumns, t, p.JobID))
		if err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `INSERT INTO harvest_job_error (harvest_job_id, type, message, date_created)
			VALUES (?, ?, ?, ?)`, p.JobID, p.Type, p.Message, t); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, fmt.Sprintf(settlePendingRecords, "?1", "?2"), p.JobID, t)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return s.JobGet(ctx, p.JobID)
	}
	return job, interpretError(err)
}

// JobFinish implements store.Store.
func (s *Store) JobFinish(ctx context.Context, jobID string) (*store.Job, bool, error) {
	job, err := scanJob(s.db.QueryRowContext(ctx, `
		UPDATE harvest_job SET status = 'complete', date_finished = ?, records_total = records_settled
		WHERE id = ? AND status = 'in_progress' AND records_expected IS NOT NULL
			AND records_settled >= records_expected
		RETURNING `+jobColumns, now(), jobID))
	if errors.Is(err, store.ErrNotFound) {
		job, err = s.JobGet(ctx, jobID)
		return job, false, err
	}
	return job, err == nil, err
}

// JobSetExpected implements store.Store.
func (s *Store) JobSetExpected(ctx context.Context, p *store.JobSetExpectedParams) (*store.Job, error) {
	return scanJob(s.db.QueryRowContext(ctx, `UPDATE harvest_job SET records_expected = ? WHERE id = ? RETURNING `+jobColumns,
		p.Expected, p.JobID))
}

// JobIdentifierAdd implements store.Store.
func (s *Store) JobIdentifierAdd(ctx context.Context, p *store.JobIdentifierAddParams) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO harvest_job_identifier (harvest_job_id, identifier) VALUES (?, ?)
		ON CONFLICT DO NOTHING`, p.JobID, p.Identifier)
	return interpretError(err)
}

// JobErrorList implements store.Store.
func (s *Store) JobErrorList(ctx context.Context, jobID string) ([]*store.JobError, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT harvest_job_id, type, message, date_created FROM harvest_job_error
		WHERE harvest_job_id = ? ORDER BY id`, jobID)
	if err != nil {
		return nil, interpretError(err)
	}
	defer rows.Close()
	var out []*store.JobError
	for rows.Next() {
		var e store.JobError
		var created string
		if err := rows.Scan(&e.JobID, &e.Type, &e.Message, &created); err != nil {
			return nil, interpretError(err)
		}
		if e.CreatedAt, err = parseTime(created); err != nil {
			return nil, err
		}
		out = append(out, &e)
	}
	return out, interpretError(rows.Err())
}

// outcomeColumn is the harvest_job counter of each outcome.
var outcomeColumn = map[harvest.Outcome]string{
	harvest.OutcomeAdded: "records_added", harvest.OutcomeUpdated: "records_updated",
	harvest.OutcomeDeleted: "records_deleted", harvest.OutcomeUnchanged: "records_unchanged",
	harvest.OutcomeErrored: "records_errored",
}

// OutcomeSettle implements store.Store: a batch of one.
func (s *Store) OutcomeSettle(ctx context.Context, p *store.OutcomeSettleParams) (*store.Job, bool, error) {
	res, err := s.OutcomeSettleBatch(ctx, []*store.OutcomeSettleParams{p})
	if err != nil {
		return nil, false, err
	}
	return res[0].Job, res[0].Fresh, res[0].Err
}

// OutcomeSettleBatch implements store.Store: one write transaction settling the items in
// order.
func (s *Store) OutcomeSettleBatch(ctx context.Context, ps []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error) {
	var out []*store.OutcomeSettled
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		out = make([]*store.OutcomeSettled, len(ps))
		jobs := map[string]*store.Job{}
		for i, p := range ps {
			out[i] = &store.OutcomeSettled{}
			fresh, err := settleOne(ctx, tx, p)
			if errors.Is(err, store.ErrNotFound) || errors.Is(err, errUnknownOutcome) {
				out[i].Err = err
				continue
			}
			if err != nil {
				return err
			}
			out[i].Fresh = fresh
			jobs[p.JobID] = nil
		}
		for id := range jobs {
			job, err := scanJob(tx.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM harvest_job WHERE id = ?`, id))
			if err != nil {
				return err
			}
			jobs[id] = job
		}
		for i, p := range ps {
			if out[i].Err == nil {
				out[i].Job = jobs[p.JobID]
			}
		}
		return nil
	})
	if err != nil {
		return nil, interpretError(err)
	}
	return out, nil
}

// errUnknownOutcome is an outcome with no harvest_job counter.
var errUnknownOutcome = errors.New("settle outcome: unknown outcome")

// settleOne settles one outcome inside tx and reports whether it was new. A finished job's
// counts are final: only a key re-opened for a replay still settles on it. It returns
// store.ErrNotFound when the job does not exist.
func settleOne(ctx context.Context, tx *sql.Tx, p *store.OutcomeSettleParams) (bool, error) {
	col, ok := outcomeColumn[p.Outcome]
	if !ok {
		return false, fmt.Errorf("%w %q", errUnknownOutcome, p.Outcome)
	}
	var status harvest.JobStatus
	if err := tx.QueryRowContext(ctx, `SELECT status FROM harvest_job WHERE id = ?`, p.JobID).Scan(&status); err != nil {
		return false, interpretError(err)
	}
	t := now()
	inserted := false
	if !status.Finished() {
		res, err := tx.ExecContext(ctx, `INSERT INTO harvest_job_outcome (harvest_job_id, key, outcome, validated)
			VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, p.JobID, p.Key, p.Outcome, p.Validated)
		if err != nil {
			return false, err
		}
		n, _ := res.RowsAffected()
		inserted = n == 1
	}
	if inserted {
		validated := 0
		if p.Validated {
			validated = 1
		}
		if _, err := tx.ExecContext(ctx, `UPDATE harvest_job SET records_settled = records_settled + 1,
			`+col+` = `+col+` + 1, records_validated = records_validated + ?, heartbeat_at = ? WHERE id = ?`,
			validated, t, p.JobID); err != nil {
			return false, err
		}
	} else {
		job, err := settleReopened(ctx, tx, p, col)
		if job == nil || err != nil {
			return false, err
		}
	}
	var recordID any
	if p.RecordID != "" {
		recordID = p.RecordID
	}
	for _, e := range p.Errors { // a record that is gone (its source deleted meanwhile) keeps its error row, unlinked
		if _, err := tx.ExecContext(ctx, `INSERT INTO harvest_record_error (harvest_job_id, harvest_record_id,
			identifier, type, message, severity, date_created, key)
			VALUES (?, (SELECT id FROM harvest_record WHERE id = ?), ?, ?, ?, ?, ?, ?)`,
			p.JobID, recordID, p.Identifier, e.Type, e.Message, e.Severity, t, p.Key); err != nil {
			return false, err
		}
	}
	if p.CarriedFromRecordID != "" { // the rows the carried record's own job found, not those carried into others
		if _, err := tx.ExecContext(ctx, `INSERT INTO harvest_record_error (harvest_job_id, harvest_record_id,
			identifier, type, message, severity, date_created, key, carried_from_job_id)
			SELECT ?, e.harvest_record_id, ?, e.type, e.message, e.severity, ?, ?, e.harvest_job_id
			FROM harvest_record r JOIN harvest_record_error e ON e.harvest_record_id = r.id
				AND e.harvest_job_id = r.harvest_job_id AND e.carried_from_job_id IS NULL
			WHERE r.id = ? ORDER BY e.id`,
			p.JobID, p.Identifier, t, p.Key, p.CarriedFromRecordID); err != nil {
			return false, err
		}
	}
	if p.CarriedFromJobID != "" { // that job's rows of the key, with their origin
		if _, err := tx.ExecContext(ctx, `INSERT INTO harvest_record_error (harvest_job_id, harvest_record_id,
			identifier, type, message, severity, date_created, key, carried_from_job_id)
			SELECT ?, harvest_record_id, identifier, type, message, severity, ?, ?, COALESCE(carried_from_job_id, harvest_job_id)
			FROM harvest_record_error WHERE harvest_job_id = ? AND key = ? ORDER BY id`,
			p.JobID, t, p.Key, p.CarriedFromJobID, p.Key); err != nil {
			return false, err
		}
	}
	if recordID != nil && p.Status != "" {
		var transform any // NULL keeps the row's source_transform
		if len(p.SourceTransform) > 0 {
			transform = string(store.StorableJSON(p.SourceTransform))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE harvest_record SET status = ?, date_finished = ?,
			source_transform = COALESCE(?, source_transform) WHERE id = ?`,
			p.Status, t, transform, p.RecordID); err != nil {
			return false, err
		}
	}
	return true, nil
}

// settleReopened replaces the outcome of a key re-opened for replay with p's, moving the job's
// counts, and deletes the key's old error rows. It returns nil (and changes nothing) when the
// key is not re-opened: then it has simply settled already. The transaction holds the write
// lock (BEGIN IMMEDIATE), so no other settle of the key interleaves.
func settleReopened(ctx context.Context, tx *sql.Tx, p *store.OutcomeSettleParams, col string) (*store.Job, error) {
	var old harvest.Outcome
	var oldValidated sql.NullBool
	err := tx.QueryRowContext(ctx, `SELECT outcome, validated FROM harvest_job_outcome
		WHERE harvest_job_id = ? AND key = ? AND replay_at IS NOT NULL`, p.JobID, p.Key).Scan(&old, &oldValidated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE harvest_job_outcome SET outcome = ?, validated = ?, replay_at = NULL
		WHERE harvest_job_id = ? AND key = ?`, p.Outcome, p.Validated, p.JobID, p.Key); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM harvest_record_error WHERE harvest_job_id = ? AND key = ?`,
		p.JobID, p.Key); err != nil {
		return nil, err
	}
	delta := 0
	if p.Validated {
		delta++
	}
	if oldValidated.Valid && oldValidated.Bool {
		delta--
	}
	set := "records_validated = records_validated + ?"
	if oldCol := outcomeColumn[old]; oldCol != col {
		set += ", " + oldCol + " = " + oldCol + " - 1, " + col + " = " + col + " + 1"
	}
	return scanJob(tx.QueryRowContext(ctx, `UPDATE harvest_job SET `+set+` WHERE id = ? RETURNING `+jobColumns, delta, p.JobID))
}

// OutcomeReopen implements store.Store.
func (s *Store) OutcomeReopen(ctx context.Context, p *store.OutcomeReopenParams) (bool, error) {
	var staleBefore any
	if !p.StaleBefore.IsZero() {
		staleBefore = formatTime(p.StaleBefore)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE harvest_job_outcome SET replay_at = ?, validated = coalesce(validated, ?)
		WHERE harvest_job_id = ? AND key = ? AND outcome = 'errored' AND (replay_at IS NULL OR replay_at < ?)`,
		now(), p.Validated, p.JobID, p.Key, staleBefore)
	if err != nil {
		return false, interpretError(err)
	}
	n, err := res.RowsAffected()
	return n == 1, interpretError(err)
}

// OutcomeErroredStream implements store.Store.
func (s *Store) OutcomeErroredStream(ctx context.Context, jobID string, fn func(key string) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT key FROM harvest_job_outcome WHERE harvest_job_id = ?
		AND outcome = 'errored' ORDER BY key`, jobID)
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
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM harvest_job_outcome
		WHERE harvest_job_id = ? AND replay_at IS NOT NULL`, jobID).Scan(&n)
	return n, interpretError(err)
}
