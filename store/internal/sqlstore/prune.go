package sqlstore

import (
	"cmp"
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/store"
)

// prunableRecord is RecordPrune's rule for the harvest_record r, with the cutoff %[1]s: its job
// has finished; a newer record of its key was written before the cutoff (so r is not the newest
// of its key, and was superseded longer ago than the retention); it is not the newest record of
// its key with a known outcome (RecordLatest's); no dataset points at it. Every lookup goes by
// an index: harvest_record_current for the key, dataset's unique harvest_record_id. Records of
// one timestamp are none newer than the other, so a tie keeps both.
const prunableRecord = `r.date_created < %[1]s
	AND EXISTS (SELECT 1 FROM harvest_job rj WHERE rj.id = r.harvest_job_id AND rj.status IN ('complete', 'error'))
	AND EXISTS (SELECT 1 FROM harvest_record n WHERE n.harvest_source_id = r.harvest_source_id
		AND n.identifier = r.identifier AND n.date_created > r.date_created AND n.date_created < %[1]s)
	AND (r.status NOT IN ('success', 'error_validation', 'error_transform') OR EXISTS (SELECT 1 FROM harvest_record n
		WHERE n.harvest_source_id = r.harvest_source_id AND n.identifier = r.identifier
			AND n.status IN ('success', 'error_validation', 'error_transform') AND n.date_created > r.date_created))
	AND NOT EXISTS (SELECT 1 FROM dataset d WHERE d.harvest_record_id = r.id)`

// prunableJob is JobPrune's rule for the harvest_job j, with the cutoff %[1]s and the offset
// of the source's oldest kept job %[2]s (KeepJobs-1): it finished before the cutoff; a job of
// its source at that offset, newest first, is newer (so it is not one of the KeepJobs newest;
// a tie keeps it); it is not its source's latest finished harvest, force_harvest or clear job
// (JobFetchLatest's); no cross-source duplicate pair names it; every record it holds is one
// RecordPrune deletes.
const prunableJob = `j.status IN ('complete', 'error') AND COALESCE(j.date_finished, j.date_created) < %[1]s
	AND j.date_created < (SELECT k.date_created FROM harvest_job k WHERE k.harvest_source_id = j.harvest_source_id
		ORDER BY k.date_created DESC, k.id DESC LIMIT 1 OFFSET %[2]s)
	AND NOT EXISTS (SELECT 1 FROM (SELECT k.id FROM harvest_job k WHERE k.harvest_source_id = j.harvest_source_id
			AND k.status IN ('complete', 'error') AND k.job_type IN ('harvest', 'force_harvest', 'clear')
			ORDER BY k.date_created DESC, k.id DESC LIMIT 1) f WHERE f.id = j.id)
	AND NOT EXISTS (SELECT 1 FROM dataset d WHERE d.duplicate_job_id = j.id)
	AND NOT EXISTS (SELECT 1 FROM harvest_record r WHERE r.harvest_job_id = j.id AND NOT (` + prunableRecord + `))`

// pruneStart is After for a pass's first call: lower than every id (ids are UUIDs in their
// lowercase text form, ordered as text on SQLite and by bytes, the same order, on Postgres).
const pruneStart = "00000000-0000-0000-0000-000000000000"

// PrunePageSQL is prunePage's statement on table ($1 the id after which the page starts, $2 its
// size). The ORDER BY names the table's column: a bare "id" would name the output column, the
// text CAST(id AS TEXT) is named after, which no index holds on Postgres (there every page was a
// sequential scan of the whole table and a sort, so a pass over N rows read N²/limit of them).
func PrunePageSQL(table string) string {
	return `SELECT CAST(id AS TEXT) FROM ` + table + ` WHERE id > $1 ORDER BY ` + table + `.id LIMIT $2`
}

// prunePage returns the ids of at most limit rows of table after after, in id order, and the
// Next of the call: the last of them, or "" when there were fewer than limit.
func (s *Store) prunePage(ctx context.Context, table, after string, limit int) (ids []string, next string, err error) {
	if after == "" {
		after = pruneStart
	}
	ids, err = Collect(s.q.Query(ctx, PrunePageSQL(table), after, limit), String)
	if err != nil || len(ids) == 0 {
		return nil, "", err
	}
	if len(ids) == limit {
		next = ids[len(ids)-1]
	}
	return ids, next, nil
}

// RecordPrune implements store.Store: the batch is the records with ids in (After, the page's
// last id], judged and deleted in one transaction of two statements (their own error rows,
// then the records).
func (s *Store) RecordPrune(ctx context.Context, p *store.PruneParams) (*store.Pruned, error) {
	pp := p.WithDefaults()
	res := &store.Pruned{Rows: map[string]int{}}
	if pp.Before.IsZero() {
		return res, nil
	}
	ids, next, err := s.prunePage(ctx, "harvest_record", pp.After, pp.Limit)
	if err != nil || len(ids) == 0 {
		return res, err
	}
	res.Next = ids[len(ids)-1]
	batch := `SELECT r.id FROM harvest_record r WHERE r.id > $1 AND r.id <= $2 AND ` + fmt.Sprintf(prunableRecord, "$3")
	// Only the rows the record's own job wrote: rows a later job carried from it stay that job's.
	ownErrors := `harvest_record_id IN (` + batch + `) AND harvest_job_id =
		(SELECT o.harvest_job_id FROM harvest_record o WHERE o.id = harvest_record_error.harvest_record_id)`
	args := []any{cmp.Or(pp.After, pruneStart), res.Next, s.d.Time(pp.Before)}
	if pp.DryRun {
		res.Rows[store.TableRecordError], err = Count(ctx, s.q, `SELECT count(*) FROM harvest_record_error WHERE `+ownErrors, args...)
		if err == nil {
			res.Rows[store.TableRecord], err = Count(ctx, s.q, `SELECT count(*) FROM (`+batch+`) b`, args...)
		}
	} else {
		err = s.d.InTx(ctx, func(tx Querier) error {
			n, err := tx.Exec(ctx, `DELETE FROM harvest_record_error WHERE `+ownErrors, args...)
			if err != nil {
				return err
			}
			res.Rows[store.TableRecordError] = int(n)
			n, err = tx.Exec(ctx, `DELETE FROM harvest_record WHERE id IN (`+batch+`)`, args...)
			res.Rows[store.TableRecord] = int(n)
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("prune records: %w", err)
	}
	res.Next = next
	return res, nil
}

// jobChildren are the tables of a job's own rows that JobPrune deletes before the job, each
// with the column that, with harvest_job_id, picks a chunk of them.
var jobChildren = []struct{ table, key string }{
	{store.TableJobIdentifier, "identifier"},
	{store.TableJobOutcome, "key"},
	{store.TableRecordError, "id"},
	{store.TableJobError, "id"},
}

// JobPrune implements store.Store: the batch is the jobs with ids in (After, the page's last
// id]; each prunable one's rows go table by table in chunks of at most Limit rows, then the
// job, judged again in its DELETE.
func (s *Store) JobPrune(ctx context.Context, p *store.PruneParams) (*store.Pruned, error) {
	pp := p.WithDefaults()
	res := &store.Pruned{Rows: map[string]int{}}
	if pp.Before.IsZero() {
		return res, nil
	}
	ids, next, err := s.prunePage(ctx, "harvest_job", pp.After, pp.Limit)
	if err != nil || len(ids) == 0 {
		return res, err
	}
	rule := fmt.Sprintf(prunableJob, "$3", "$4")
	cutoff, offset := s.d.Time(pp.Before), pp.KeepJobs-1
	jobs, err := Collect(s.q.Query(ctx, `SELECT CAST(j.id AS TEXT) FROM harvest_job j WHERE j.id > $1 AND j.id <= $2 AND `+rule,
		cmp.Or(pp.After, pruneStart), ids[len(ids)-1], cutoff, offset), String)
	if err != nil {
		return nil, fmt.Errorf("prune jobs: %w", err)
	}
	for _, id := range jobs {
		if err := s.pruneJob(ctx, id, &pp, res.Rows); err != nil {
			return nil, fmt.Errorf("prune job %s: %w", id, err)
		}
	}
	res.Next = next
	return res, nil
}

// pruneJob deletes (or, with p.DryRun, counts) the job's own rows and the job, adding to rows.
func (s *Store) pruneJob(ctx context.Context, jobID string, p *store.PruneParams, rows map[string]int) error {
	if p.DryRun {
		for _, c := range jobChildren {
			where := `harvest_job_id = $1`
			if c.table == store.TableRecordError { // its records' own rows are RecordPrune's count
				where += ` AND NOT EXISTS (SELECT 1 FROM harvest_record o WHERE o.id = harvest_record_error.harvest_record_id
					AND o.harvest_job_id = harvest_record_error.harvest_job_id)`
			}
			n, err := Count(ctx, s.q, `SELECT count(*) FROM `+c.table+` WHERE `+where, jobID)
			if err != nil {
				return err
			}
			rows[c.table] += n
		}
		rows[store.TableJob]++
		return nil
	}
	for _, c := range jobChildren {
		for {
			n, err := s.q.Exec(ctx, `DELETE FROM `+c.table+` WHERE harvest_job_id = $1 AND `+c.key+` IN
				(SELECT `+c.key+` FROM `+c.table+` WHERE harvest_job_id = $1 LIMIT $2)`, jobID, p.Limit)
			if err != nil {
				return err
			}
			rows[c.table] += int(n)
			if n < int64(p.Limit) {
				break
			}
		}
	}
	// Judged again: the job goes only if it is still prunable (its records, RecordPrune's
	// rule, cascade with it: none is left after a RecordPrune pass).
	n, err := s.q.Exec(ctx, `DELETE FROM harvest_job WHERE id IN (SELECT j.id FROM harvest_job j WHERE j.id = $1 AND `+
		fmt.Sprintf(prunableJob, "$2", "$3")+`)`, jobID, s.d.Time(p.Before), p.KeepJobs-1)
	rows[store.TableJob] += int(n)
	return err
}
