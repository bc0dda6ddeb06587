package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// reopenedSQL are the statements of sqlstore.Scanner.SettleReopened. The key's row is locked
// so that no other settle of the key interleaves.
var reopenedSQL = sqlstore.ReopenedSQL{
	Select: `SELECT outcome, validated FROM harvest_job_outcome
		WHERE harvest_job_id = $1 AND key = $2 AND replay_at IS NOT NULL FOR UPDATE`,
	Replace: `UPDATE harvest_job_outcome SET outcome = $3, validated = $4, replay_at = NULL
		WHERE harvest_job_id = $1 AND key = $2`,
	DeleteErrors: `DELETE FROM harvest_record_error WHERE harvest_job_id = $1 AND key = $2`,
	Count:        `UPDATE harvest_job SET records_validated = records_validated + $2%s WHERE id = $1 RETURNING ` + sqlstore.JobColumns,
}

// outcomeKey names one aggregator key of a job.
type outcomeKey struct{ job, key string }

// OutcomeSettleBatch implements store.Store. In one transaction it locks the batch's jobs (in
// id order, so concurrent batches cannot deadlock; FOR NO KEY UPDATE, which the counter
// UPDATE takes anyway, not FOR UPDATE: the latter also blocks the foreign-key checks of every
// row inserted for the job meanwhile, COMPARE's harvest_record and EXTRACT's
// harvest_job_identifier inserts, which then waited for each settle to commit), inserts the outcomes of open jobs with one
// multi-row INSERT, settles re-opened keys one by one (rare: a replay), then sends the
// counter updates (one per job), the error rows, the record statuses (and source_transforms)
// and the jobs' final rows
// in one pipelined round trip.
func (s *Store) OutcomeSettleBatch(ctx context.Context, ps []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error) {
	out := make([]*store.OutcomeSettled, len(ps))
	var live []int
	jobIDs := map[string]bool{}
	for i, p := range ps {
		out[i] = &store.OutcomeSettled{}
		switch {
		case sqlstore.OutcomeColumn[p.Outcome] == "":
			out[i].Err = errors.New("settle outcome: unknown outcome " + string(p.Outcome))
		case uuid.Validate(p.JobID) != nil:
			out[i].Err = fmt.Errorf("%w: job id %q is not a uuid", store.ErrNotFound, p.JobID)
		case p.RecordID != "" && uuid.Validate(p.RecordID) != nil:
			out[i].Err = fmt.Errorf("%w: record id %q is not a uuid", store.ErrNotFound, p.RecordID)
		default:
			live = append(live, i)
			jobIDs[p.JobID] = true
		}
	}
	if len(live) == 0 {
		return out, nil
	}
	ids := slices.Sorted(maps.Keys(jobIDs))
	var fresh map[int]bool
	var jobs map[string]*store.HarvestJob
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		fresh, jobs, err = settleBatch(ctx, tx, ps, live, ids)
		return err
	})
	if err != nil {
		return nil, interpretError(err)
	}
	for _, i := range live {
		if job := jobs[ps[i].JobID]; job == nil {
			out[i].Err = store.ErrNotFound
		} else {
			out[i].Job, out[i].Fresh = job, fresh[i]
		}
	}
	return out, nil
}

// lockJobsSQL locks the jobs of a settle batch ($1, in id order) for the rest of its transaction
// and says which are open. FOR NO KEY UPDATE keeps settles of one job one at a time without
// blocking the foreign-key checks (FOR KEY SHARE) of rows other stages insert for the job.
const lockJobsSQL = `SELECT id::text, status IN ('new', 'in_progress') FROM harvest_job
	WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`

// settleBatch is OutcomeSettleBatch's transaction over the items live of ps, whose jobs are
// ids. It returns which items were new and every existing job's row after the batch.
func settleBatch(ctx context.Context, tx pgx.Tx, ps []*store.OutcomeSettleParams, live []int, ids []string) (
	map[int]bool, map[string]*store.HarvestJob, error) {
	open := map[string]bool{}
	rows, _ := tx.Query(ctx, lockJobsSQL, ids)
	var id string
	var isOpen bool
	if _, err := pgx.ForEachRow(rows, []any{&id, &isOpen}, func() error { open[id] = isOpen; return nil }); err != nil {
		return nil, nil, err
	}
	first, inserted, err := insertOutcomes(ctx, tx, ps, live, open)
	if err != nil {
		return nil, nil, err
	}
	fresh, perJob, err := countOutcomes(ctx, tx, ps, live, first, inserted)
	if err != nil {
		return nil, nil, err
	}

	b := &pgx.Batch{}
	for job, c := range perJob {
		b.Queue(`UPDATE harvest_job SET records_settled = records_settled + $2, records_validated = records_validated + $3,
			records_added = records_added + $4, records_updated = records_updated + $5, records_deleted = records_deleted + $6,
			records_unchanged = records_unchanged + $7, records_errored = records_errored + $8, heartbeat_at = now()
			WHERE id = $1`, job, c.settled, c.validated, c.added, c.updated, c.deleted, c.unchanged, c.errored)
	}
	var rs settledRows
	for _, i := range live {
		if fresh[i] {
			rs.add(ps[i])
		}
	}
	rs.queue(b)
	jobs := map[string]*store.HarvestJob{}
	b.Queue(`SELECT `+sqlstore.JobColumns+` FROM harvest_job WHERE id = ANY($1::uuid[])`, ids).Query(func(r pgx.Rows) error {
		return sqlstore.Each(pgxRows{r}, scan.Job, func(job *store.HarvestJob) error { jobs[job.ID] = job; return nil })
	})
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, nil, err
	}
	return fresh, jobs, nil
}

// insertOutcomes finds the first item of each key of an existing job among the items live of
// ps (first: key → item), and inserts those of open jobs in one INSERT; inserted holds the
// keys that had not settled before.
func insertOutcomes(ctx context.Context, tx pgx.Tx, ps []*store.OutcomeSettleParams, live []int, open map[string]bool) (
	first map[outcomeKey]int, inserted map[outcomeKey]bool, err error) {
	// The first item of each key of an existing job settles it; an open job's go in one INSERT.
	first = map[outcomeKey]int{}
	var insJob, insKey, insOutcome []string
	var insValidated []bool
	for _, i := range live {
		p := ps[i]
		k := outcomeKey{p.JobID, p.Key}
		if _, known := open[p.JobID]; !known {
			continue
		}
		if _, dup := first[k]; dup {
			continue
		}
		first[k] = i
		if open[p.JobID] {
			insJob, insKey = append(insJob, p.JobID), append(insKey, p.Key)
			insOutcome, insValidated = append(insOutcome, string(p.Outcome)), append(insValidated, p.Validated)
		}
	}
	inserted = map[outcomeKey]bool{}
	if len(insJob) > 0 {
		rows, _ := tx.Query(ctx, `INSERT INTO harvest_job_outcome (harvest_job_id, key, outcome, validated)
			SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bool[]) ON CONFLICT DO NOTHING
			RETURNING harvest_job_id::text, key`, insJob, insKey, insOutcome, insValidated)
		var k outcomeKey
		if _, err := pgx.ForEachRow(rows, []any{&k.job, &k.key}, func() error { inserted[k] = true; return nil }); err != nil {
			return nil, nil, err
		}
	}
	return first, inserted, nil
}

// outcomeCounts are the counters of one job that a batch adds to.
type outcomeCounts struct{ settled, validated, added, updated, deleted, unchanged, errored int }

// countOutcomes counts the new outcomes per job; a key that had settled already counts only
// when it was re-opened for a replay (then its old outcome's count moves to the new one,
// scan.SettleReopened). fresh holds the items that settled.
func countOutcomes(ctx context.Context, tx pgx.Tx, ps []*store.OutcomeSettleParams, live []int,
	first map[outcomeKey]int, inserted map[outcomeKey]bool) (fresh map[int]bool, perJob map[string]*outcomeCounts, err error) {
	perJob = map[string]*outcomeCounts{}
	fresh = map[int]bool{}
	for _, i := range live {
		p := ps[i]
		k := outcomeKey{p.JobID, p.Key}
		if j, ok := first[k]; !ok || j != i {
			continue
		}
		if !inserted[k] {
			job, err := scan.SettleReopened(ctx, querier{tx}, &reopenedSQL, p)
			if err != nil {
				return nil, nil, err
			}
			fresh[i] = job != nil
			continue
		}
		fresh[i] = true
		c := perJob[p.JobID]
		if c == nil {
			c = &outcomeCounts{}
			perJob[p.JobID] = c
		}
		c.settled++
		if p.Validated {
			c.validated++
		}
		switch p.Outcome {
		case harvest.OutcomeAdded:
			c.added++
		case harvest.OutcomeUpdated:
			c.updated++
		case harvest.OutcomeDeleted:
			c.deleted++
		case harvest.OutcomeUnchanged:
			c.unchanged++
		case harvest.OutcomeErrored:
			c.errored++
		}
	}
	return fresh, perJob, nil
}

// settledRows are the rows the fresh outcomes of a batch write besides their outcome: their
// error rows (e*), the error rows carried from an earlier record (c*) or an earlier job (j*),
// and their records' status (rec*), as columns for unnest.
type settledRows struct {
	eJob, eIdent, eType, eMsg, eSev, eKey []string
	eRec                                  []*string
	recID, recStatus                      []string
	recTransform                          []*string // nil keeps the row's source_transform
	cJob, cIdent, cKey                    []string
	cRec                                  []pgtype.UUID
	jJob, jKey                            []string
	jFrom                                 []pgtype.UUID
}

// add takes the rows of the fresh outcome p.
func (rs *settledRows) add(p *store.OutcomeSettleParams) {
	if p.CarriedFromJobID != "" {
		rs.jJob, rs.jFrom, rs.jKey = append(rs.jJob, p.JobID), append(rs.jFrom, pgUUID(p.CarriedFromJobID)), append(rs.jKey, p.Key)
	}
	if p.CarriedFromRecordID != "" {
		rs.cJob, rs.cRec = append(rs.cJob, p.JobID), append(rs.cRec, pgUUID(p.CarriedFromRecordID))
		rs.cIdent, rs.cKey = append(rs.cIdent, harvest.ClipIdentifier(p.Identifier)), append(rs.cKey, p.Key)
	}
	var rec *string
	if p.RecordID != "" {
		rec = &p.RecordID
		if p.Status != "" {
			rs.recID, rs.recStatus = append(rs.recID, p.RecordID), append(rs.recStatus, string(p.Status))
			var transform *string
			if len(p.SourceTransform) > 0 {
				t := string(store.StorableJSON(p.SourceTransform))
				transform = &t
			}
			rs.recTransform = append(rs.recTransform, transform)
		}
	}
	for _, e := range p.Errors {
		rs.eJob, rs.eRec, rs.eIdent = append(rs.eJob, p.JobID), append(rs.eRec, rec), append(rs.eIdent, harvest.ClipIdentifier(p.Identifier))
		rs.eType, rs.eMsg, rs.eSev, rs.eKey = append(rs.eType, e.Type), append(rs.eMsg, e.Message), append(rs.eSev, string(e.Severity)), append(rs.eKey, p.Key)
	}
}

// queue queues the statements that write the rows on b.
func (rs *settledRows) queue(b *pgx.Batch) {
	if len(rs.eJob) > 0 { // a record that is gone (its source deleted meanwhile) keeps its error row, unlinked
		b.Queue(`INSERT INTO harvest_record_error (harvest_job_id, harvest_record_id, identifier, type, message, severity, key)
			SELECT v.job, r.id, v.identifier, v.type, v.message, v.severity, v.key
			FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
				WITH ORDINALITY AS v(job, record, identifier, type, message, severity, key, n)
			LEFT JOIN harvest_record r ON r.id = v.record ORDER BY v.n`, rs.eJob, rs.eRec, rs.eIdent, rs.eType, rs.eMsg, rs.eSev, rs.eKey)
	}
	if len(rs.cJob) > 0 { // the rows the carried record's own job found, not those carried into others
		b.Queue(`INSERT INTO harvest_record_error (harvest_job_id, harvest_record_id, identifier, type, message, severity,
				key, carried_from_job_id)
			SELECT v.job, e.harvest_record_id, v.identifier, e.type, e.message, e.severity, v.key, e.harvest_job_id
			FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) WITH ORDINALITY AS v(job, record, identifier, key, n)
			JOIN harvest_record r ON r.id = v.record
			JOIN harvest_record_error e ON e.harvest_record_id = r.id AND e.harvest_job_id = r.harvest_job_id
				AND e.carried_from_job_id IS NULL
			ORDER BY v.n, e.id`, rs.cJob, rs.cRec, rs.cIdent, rs.cKey)
	}
	if len(rs.jJob) > 0 { // the earlier job's rows of the key, with their origin
		b.Queue(`INSERT INTO harvest_record_error (harvest_job_id, harvest_record_id, identifier, type, message, severity,
				key, carried_from_job_id)
			SELECT v.job, e.harvest_record_id, e.identifier, e.type, e.message, e.severity, v.key,
				COALESCE(e.carried_from_job_id, e.harvest_job_id)
			FROM unnest($1::uuid[], $2::uuid[], $3::text[]) WITH ORDINALITY AS v(job, from_job, key, n)
			JOIN harvest_record_error e ON e.harvest_job_id = v.from_job AND e.key = v.key
			ORDER BY v.n, e.id`, rs.jJob, rs.jFrom, rs.jKey)
	}
	if len(rs.recID) > 0 {
		b.Queue(`UPDATE harvest_record r SET status = v.status, date_finished = now(),
				source_transform = COALESCE(v.transform::jsonb, r.source_transform)
			FROM unnest($1::uuid[], $2::text[], $3::text[]) AS v(id, status, transform) WHERE r.id = v.id`,
			rs.recID, rs.recStatus, rs.recTransform)
	}
}

// OutcomeReopen implements store.Store.
func (s *Store) OutcomeReopen(ctx context.Context, p *store.OutcomeReopenParams) (bool, error) {
	var staleBefore *time.Time
	if !p.StaleBefore.IsZero() {
		staleBefore = &p.StaleBefore
	}
	n, err := s.q.Exec(ctx, `UPDATE harvest_job_outcome SET replay_at = clock_timestamp(),
			validated = coalesce(validated, $3)
		WHERE harvest_job_id = $1 AND key = $2 AND outcome = 'errored'
			AND (replay_at IS NULL OR replay_at < $4)`, p.JobID, p.Key, p.Validated, staleBefore)
	return n == 1, err
}

// OutcomeErroredStream implements store.Store.
func (s *Store) OutcomeErroredStream(ctx context.Context, jobID string, fn func(key string) error) error {
	return sqlstore.Each(s.q.Query(ctx, `SELECT key FROM harvest_job_outcome WHERE harvest_job_id = $1
		AND outcome = 'errored' ORDER BY key`, pgUUID(jobID)), sqlstore.String, fn)
}
