package postgres

import (
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/store"
)

const jobFetchColumns = `id, job_type, status, fetch_url, fetch_schema_type, fetch_etag,
	fetch_last_modified, fetch_not_modified`

func scanJobFetch(row interface{ Scan(...any) error }) (*store.JobFetchRow, error) {
	var r store.JobFetchRow
	err := row.Scan(&r.JobID, &r.JobType, &r.Status, &r.URL, &r.SchemaType, &r.ETag, &r.LastModified, &r.NotModified)
	if err != nil {
		return nil, interpretError(err)
	}
	return &r, nil
}

// JobFetchGet implements store.Store.
func (s *Store) JobFetchGet(ctx context.Context, jobID string) (*store.JobFetch, error) {
	r, err := scanJobFetch(s.pool.QueryRow(ctx, `SELECT `+jobFetchColumns+` FROM harvest_job WHERE id = $1`, jobID))
	if err != nil {
		return nil, err
	}
	return r.Fetch()
}

// JobFetchLatest implements store.Store.
func (s *Store) JobFetchLatest(ctx context.Context, sourceID string) (*store.JobFetch, error) {
	r, err := scanJobFetch(s.pool.QueryRow(ctx, `SELECT `+jobFetchColumns+` FROM harvest_job
		WHERE harvest_source_id = $1 AND status IN ('complete', 'error')
			AND job_type IN ('harvest', 'force_harvest', 'clear')
		ORDER BY date_created DESC, id DESC LIMIT 1`, sourceID))
	if err != nil {
		return nil, err
	}
	f, err := r.Reusable()
	if err != nil {
		return nil, err
	}
	var unsettled bool
	if err := s.pool.QueryRow(ctx, fmt.Sprintf(unsettledRecord, "$1"), sourceID).Scan(&unsettled); err != nil {
		return nil, interpretError(err)
	}
	if unsettled {
		return nil, store.ErrNotFound
	}
	return f, nil
}

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

// settlePendingRecords gives the records a failed job (%[1]s) left pending a final status, at
// time %[2]s: success when SYNC applied them (the live dataset is this record, or a delete's
// dataset is gone), error otherwise (the job ended before they reached the catalog). So a
// cancelled job leaves no pending row behind, and the next harvest compares against what the
// catalog really has.
const settlePendingRecords = `UPDATE harvest_record SET date_finished = %[2]s, status = CASE
		WHEN action = 'delete' AND NOT EXISTS (SELECT 1 FROM dataset d
			WHERE d.harvest_source_id = harvest_record.harvest_source_id AND d.identifier = harvest_record.identifier)
			THEN 'success'
		WHEN action <> 'delete' AND EXISTS (SELECT 1 FROM dataset d WHERE d.harvest_record_id = harvest_record.id)
			THEN 'success'
		ELSE 'error' END
	WHERE harvest_job_id = %[1]s AND status = 'pending'`

// JobFetchSet implements store.Store.
func (s *Store) JobFetchSet(ctx context.Context, p *store.JobFetch) error {
	tag, err := s.pool.Exec(ctx, `UPDATE harvest_job SET fetch_url = $2, fetch_schema_type = $3,
		fetch_etag = NULLIF($4, ''), fetch_last_modified = NULLIF($5, ''), fetch_not_modified = $6
		WHERE id = $1`, p.JobID, p.URL, string(p.SchemaType), p.ETag, p.LastModified, p.NotModified)
	if err != nil {
		return interpretError(err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}
