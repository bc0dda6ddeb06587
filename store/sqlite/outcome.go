package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// OutcomeSettleBatch implements store.Store: one write transaction settling the items in
// order.
func (s *Store) OutcomeSettleBatch(ctx context.Context, ps []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error) {
	var out []*store.OutcomeSettled
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		out = make([]*store.OutcomeSettled, len(ps))
		jobs := map[string]*store.HarvestJob{}
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
			job, err := scan.Job(querier{tx}.QueryRow(ctx, `SELECT `+sqlstore.JobColumns+` FROM harvest_job WHERE id = ?`, id))
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
	col, ok := sqlstore.OutcomeColumn[p.Outcome]
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
		job, err := scan.SettleReopened(ctx, querier{tx}, &reopenedSQL, p)
		if job == nil || err != nil {
			return false, err
		}
	}
	return true, writeSettledRows(ctx, tx, p, t)
}

// writeSettledRows writes what the fresh outcome p writes besides its outcome, at time t: its
// error rows, the error rows carried from an earlier record or job, and its record's status
// (t is the time as the store writes it).
func writeSettledRows(ctx context.Context, tx *sql.Tx, p *store.OutcomeSettleParams, t string) error {
	var recordID any
	if p.RecordID != "" {
		recordID = p.RecordID
	}
	for _, e := range p.Errors { // a record that is gone (its source deleted meanwhile) keeps its error row, unlinked
		if _, err := tx.ExecContext(ctx, `INSERT INTO harvest_record_error (harvest_job_id, harvest_record_id,
			identifier, type, message, severity, date_created, key)
			VALUES (?, (SELECT id FROM harvest_record WHERE id = ?), ?, ?, ?, ?, ?, ?)`,
			p.JobID, recordID, harvest.ClipIdentifier(p.Identifier), e.Type, e.Message, e.Severity, t, p.Key); err != nil {
			return err
		}
	}
	if p.CarriedFromRecordID != "" { // the rows the carried record's own job found, not those carried into others
		if _, err := tx.ExecContext(ctx, `INSERT INTO harvest_record_error (harvest_job_id, harvest_record_id,
			identifier, type, message, severity, date_created, key, carried_from_job_id)
			SELECT ?, e.harvest_record_id, ?, e.type, e.message, e.severity, ?, ?, e.harvest_job_id
			FROM harvest_record r JOIN harvest_record_error e ON e.harvest_record_id = r.id
				AND e.harvest_job_id = r.harvest_job_id AND e.carried_from_job_id IS NULL
			WHERE r.id = ? ORDER BY e.id`,
			p.JobID, harvest.ClipIdentifier(p.Identifier), t, p.Key, p.CarriedFromRecordID); err != nil {
			return err
		}
	}
	if p.CarriedFromJobID != "" { // that job's rows of the key, with their origin
		if _, err := tx.ExecContext(ctx, `INSERT INTO harvest_record_error (harvest_job_id, harvest_record_id,
			identifier, type, message, severity, date_created, key, carried_from_job_id)
			SELECT ?, harvest_record_id, identifier, type, message, severity, ?, ?, COALESCE(carried_from_job_id, harvest_job_id)
			FROM harvest_record_error WHERE harvest_job_id = ? AND key = ? ORDER BY id`,
			p.JobID, t, p.Key, p.CarriedFromJobID, p.Key); err != nil {
			return err
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
			return err
		}
	}
	return nil
}

// reopenedSQL are the statements of sqlstore.Scanner.SettleReopened. The transaction holds
// the write lock (BEGIN IMMEDIATE), so no other settle of the key interleaves.
var reopenedSQL = sqlstore.ReopenedSQL{
	Select: `SELECT outcome, validated FROM harvest_job_outcome
		WHERE harvest_job_id = ?1 AND key = ?2 AND replay_at IS NOT NULL`,
	Replace: `UPDATE harvest_job_outcome SET outcome = ?3, validated = ?4, replay_at = NULL
		WHERE harvest_job_id = ?1 AND key = ?2`,
	DeleteErrors: `DELETE FROM harvest_record_error WHERE harvest_job_id = ?1 AND key = ?2`,
	Count:        `UPDATE harvest_job SET records_validated = records_validated + ?2%s WHERE id = ?1 RETURNING ` + sqlstore.JobColumns,
}

// OutcomeReopen implements store.Store.
func (s *Store) OutcomeReopen(ctx context.Context, p *store.OutcomeReopenParams) (bool, error) {
	var staleBefore any
	if !p.StaleBefore.IsZero() {
		staleBefore = formatTime(p.StaleBefore)
	}
	n, err := s.q.Exec(ctx, `UPDATE harvest_job_outcome SET replay_at = ?, validated = coalesce(validated, ?)
		WHERE harvest_job_id = ? AND key = ? AND outcome = 'errored' AND (replay_at IS NULL OR replay_at < ?)`,
		now(), p.Validated, p.JobID, p.Key, staleBefore)
	return n == 1, err
}

// OutcomeErroredStream implements store.Store.
func (s *Store) OutcomeErroredStream(ctx context.Context, jobID string, fn func(key string) error) error {
	return sqlstore.Each(s.q.Query(ctx, `SELECT key FROM harvest_job_outcome WHERE harvest_job_id = ?
		AND outcome = 'errored' ORDER BY key`, jobID), sqlstore.String, fn)
}
