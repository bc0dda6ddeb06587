package sqlstore

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// JobFetchColumns are the fetch columns of harvest_job, in the order Scanner.JobFetch reads.
const JobFetchColumns = `id, job_type, status, fetch_url, fetch_schema_type, fetch_etag,
	fetch_last_modified, fetch_not_modified, fetch_graph_hash`

// jobFetchLatest selects the fetch columns of the source's (%[1]s) last finished harvest,
// force_harvest or clear job.
const jobFetchLatest = `SELECT ` + JobFetchColumns + ` FROM harvest_job
	WHERE harvest_source_id = %[1]s AND status IN ('complete', 'error')
		AND job_type IN ('harvest', 'force_harvest', 'clear')
	ORDER BY date_created DESC, id DESC LIMIT 1`

// unsettledRecord finds a record of the source whose newest row failed for a reason of its own
// (status error: a sync or store failure) or never settled, and that a harvest would not find
// unchanged (its newest comparable row is not a live version with the same hash and schema
// type): a harvest must look at it again, so the document may not be skipped by a conditional
// GET. A failed row of a record that is unchanged since (a force_harvest cancelled before its
// record was synced, say) does not count: the next harvest would change nothing for it.
const unsettledRecord = `SELECT EXISTS (SELECT 1 FROM harvest_record r
	WHERE r.harvest_source_id = %[1]s AND r.status IN ('error', 'pending')
		AND NOT EXISTS (SELECT 1 FROM harvest_record k WHERE k.harvest_source_id = r.harvest_source_id
			AND k.identifier = r.identifier AND k.status IN ('success', 'error_validation', 'error_transform')
			AND k.date_created > r.date_created)
		AND NOT COALESCE((SELECT k.action <> 'delete' AND k.source_hash = r.source_hash
				AND (k.schema_type IS NULL OR k.schema_type = r.schema_type)
			FROM harvest_record k WHERE k.harvest_source_id = r.harvest_source_id AND k.identifier = r.identifier
				AND k.status IN ('success', 'error_validation', 'error_transform')
			ORDER BY k.date_created DESC LIMIT 1), false))`

// stageFailure finds a record error row of the job (%[1]s) that a stage wrote when it gave up
// on a record (type StageError: Postgres, NATS or the index down past the retries): such a
// record may have no harvest_record row at all (COMPARE gives up before it writes one), so
// unsettledRecord cannot see it, and a document skipped by a conditional GET would never list
// it again.
const stageFailure = `SELECT EXISTS (SELECT 1 FROM harvest_record_error
	WHERE harvest_job_id = %[1]s AND type = 'StageError' AND severity = 'error')`

// staleDuplicate finds a cross-source duplicate pair with a dataset of the source (%[1]s) on
// either side that ranks the other way now (a precedence changed since it was judged, or an
// earlier rule judged it: Outranks), or a dataset of the source that another source's job moved
// (dataset.duplicate_moved): a harvest must list the source's records so that COMPARE sends them
// on to SYNC again, so the document may not be skipped by a conditional GET. The
// dataset_duplicate_of and dataset_duplicate_moved indexes find the datasets.
var staleDuplicate = `SELECT EXISTS (SELECT 1 FROM dataset h JOIN dataset k ON k.id = h.duplicate_of
	JOIN harvest_source hs ON hs.id = h.harvest_source_id JOIN harvest_source ks ON ks.id = k.harvest_source_id
	WHERE h.duplicate_of IS NOT NULL AND %[1]s IN (h.harvest_source_id, k.harvest_source_id)
		AND ` + Outranks("hs.precedence", "h.harvest_source_id", "ks.precedence", "k.harvest_source_id",
	"h.duplicate_match", "h.duplicate_key") + `)
	OR EXISTS (SELECT 1 FROM dataset m WHERE m.harvest_source_id = %[1]s AND m.duplicate_moved)`

// pendingUnsettled selects the pending records of the failed job $1 whose key has no outcome
// yet, with whether SYNC applied each (applied: the live dataset is this record, or a delete's
// dataset is gone).
const pendingUnsettled = `SELECT r.id, r.identifier, r.action, CASE WHEN r.action = 'delete'
		THEN NOT EXISTS (SELECT 1 FROM dataset d
			WHERE d.harvest_source_id = r.harvest_source_id AND d.identifier = r.identifier)
		ELSE EXISTS (SELECT 1 FROM dataset d WHERE d.harvest_record_id = r.id) END AS applied
	FROM harvest_record r WHERE r.harvest_job_id = $1 AND r.status = 'pending'
		AND NOT EXISTS (SELECT 1 FROM harvest_job_outcome o
			WHERE o.harvest_job_id = r.harvest_job_id AND o.key = 'id:' || r.identifier)`

// settlePendingSQL are the statements of settlePending, in order: each reads pendingUnsettled
// before the outcome rows go in.
var settlePendingSQL = []string{
	// the counts, total included (RETURNING the job)
	`UPDATE harvest_job SET records_settled = records_settled + c.n, records_total = records_settled + c.n,
		records_validated = records_validated + c.n_validated, records_added = records_added + c.n_added,
		records_updated = records_updated + c.n_updated, records_deleted = records_deleted + c.n_deleted,
		records_errored = records_errored + c.n_errored
	FROM (SELECT count(*) AS n,
			COALESCE(SUM(CASE WHEN p.applied AND p.action <> 'delete' THEN 1 ELSE 0 END), 0) AS n_validated,
			COALESCE(SUM(CASE WHEN p.applied AND p.action = 'create' THEN 1 ELSE 0 END), 0) AS n_added,
			COALESCE(SUM(CASE WHEN p.applied AND p.action = 'update' THEN 1 ELSE 0 END), 0) AS n_updated,
			COALESCE(SUM(CASE WHEN p.applied AND p.action = 'delete' THEN 1 ELSE 0 END), 0) AS n_deleted,
			COALESCE(SUM(CASE WHEN p.applied THEN 0 ELSE 1 END), 0) AS n_errored
		FROM (` + pendingUnsettled + `) p) c
	WHERE harvest_job.id = $1 RETURNING ` + JobColumns,
	// the CancelledJob row of each record that did not reach the catalog ($2: its message)
	`INSERT INTO harvest_record_error (harvest_job_id, harvest_record_id, identifier, type, message, severity, key,
		date_created)
	SELECT $1, p.id, p.identifier, '` + harvest.TypeCancelledJob + `', $2, 'error', 'id:' || p.identifier, now()
	FROM (` + pendingUnsettled + `) p WHERE NOT p.applied`,
	// the outcomes
	`INSERT INTO harvest_job_outcome (harvest_job_id, key, outcome, validated)
	SELECT $1, 'id:' || p.identifier, CASE WHEN NOT p.applied THEN 'errored' WHEN p.action = 'create' THEN 'added'
			WHEN p.action = 'update' THEN 'updated' ELSE 'deleted' END, p.applied AND p.action <> 'delete'
	FROM (` + pendingUnsettled + `) p`,
	// the statuses: success when applied, error otherwise (a pending record whose key had an
	// outcome already, too)
	`UPDATE harvest_record SET date_finished = now(), status = CASE
		WHEN action = 'delete' AND NOT EXISTS (SELECT 1 FROM dataset d
			WHERE d.harvest_source_id = harvest_record.harvest_source_id AND d.identifier = harvest_record.identifier)
			THEN 'success'
		WHEN action <> 'delete' AND EXISTS (SELECT 1 FROM dataset d WHERE d.harvest_record_id = harvest_record.id)
			THEN 'success'
		ELSE 'error' END
	WHERE harvest_job_id = $1 AND status = 'pending'`,
}

// settlePending settles the records the failed job p.JobID left pending, in tx, at now()
// (Store.sql), and returns the job: each one whose key has no outcome yet gets one, counted,
// by whether SYNC applied it (added, updated or deleted by its action; errored with a
// CancelledJob row otherwise), and every pending row gets its final status (success when
// applied, error otherwise). So a cancelled job's counts account for every dataset that points
// at one of its records and add up, no pending row is left, and the next harvest compares
// against what the catalog really has. JobFail's lock keeps the records and datasets of the
// job still meanwhile: no write of the job's records runs until it commits.
func (s *Store) settlePending(ctx context.Context, tx Querier, now []any, p *store.JobFailParams) (*store.HarvestJob, error) {
	job, err := s.scan.Job(tx.QueryRow(ctx, settlePendingSQL[0], p.JobID))
	if err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("the job ended before this record reached the catalog (%s: %s); the next harvest tries it again",
		p.Type, p.Message)
	if _, err := tx.Exec(ctx, s.sql(settlePendingSQL[1]), s.stamped(now, p.JobID, msg)...); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, settlePendingSQL[2], p.JobID); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, s.sql(settlePendingSQL[3]), s.stamped(now, p.JobID)...); err != nil {
		return nil, err
	}
	return job, nil
}

// JobInsertValues are the id and status of the job p inserts: p.ID or a new UUID; new when
// p queues it, else in_progress.
func JobInsertValues(p *store.JobInsertParams) (string, harvest.JobStatus) {
	id := p.ID
	if id == "" {
		id = uuid.NewString()
	}
	if p.Queued {
		return id, harvest.JobNew
	}
	return id, harvest.JobInProgress
}

// Fetch is what the job of row r fetched (store.Store's JobFetchGet); err is r's scan error.
func Fetch(r *store.JobFetchRow, err error) (*store.JobFetch, error) {
	if err != nil {
		return nil, err
	}
	return r.Fetch()
}

// JobFetchLatest is store.Store's JobFetchLatest: the fetch of the source's last finished
// harvest job when a new job may reuse it, no record of the source is left unsettled and no
// cross-source duplicate pair of the source is stale; store.ErrNotFound otherwise. ph is the dialect's placeholder of the first argument ("$1" or
// "?"): the two statements read the same in both dialects but for it.
func (s *Scanner) JobFetchLatest(ctx context.Context, q Querier, ph, sourceID string) (*store.JobFetch, error) {
	r, err := s.JobFetch(q.QueryRow(ctx, fmt.Sprintf(jobFetchLatest, ph), sourceID))
	if err != nil {
		return nil, err
	}
	f, err := r.Reusable()
	if err != nil {
		return nil, err
	}
	var unsettled bool
	if err := q.QueryRow(ctx, fmt.Sprintf(unsettledRecord, ph), sourceID).Scan(&unsettled); err != nil {
		return nil, err
	}
	if !unsettled {
		if err := q.QueryRow(ctx, fmt.Sprintf(stageFailure, ph), f.JobID).Scan(&unsettled); err != nil {
			return nil, err
		}
	}
	if !unsettled {
		if err := q.QueryRow(ctx, fmt.Sprintf(staleDuplicate, ph), sourceID).Scan(&unsettled); err != nil {
			return nil, err
		}
	}
	if unsettled {
		return nil, store.ErrNotFound
	}
	return f, nil
}

// SourceInUse is SourceDelete's refusal: store.ErrConflict when the source has live datasets
// or an unfinished job, nil when it may go.
func SourceInUse(datasets, unfinished bool) error {
	switch {
	case datasets:
		return fmt.Errorf("%w: the source has live datasets", store.ErrConflict)
	case unfinished:
		return fmt.Errorf("%w: the source has an unfinished job", store.ErrConflict)
	}
	return nil
}

// OrganizationInUse is OrganizationDelete's refusal: store.ErrConflict when the organization
// has harvest sources (their foreign key would cascade), nil when it may go.
func OrganizationInUse(sources bool) error {
	if sources {
		return fmt.Errorf("%w: the organization has harvest sources", store.ErrConflict)
	}
	return nil
}
