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
// (status error: a sync or store failure) or never settled: a harvest must look at it again,
// so the document may not be skipped by a conditional GET.
const unsettledRecord = `SELECT EXISTS (SELECT 1 FROM harvest_record r
	WHERE r.harvest_source_id = %[1]s AND r.status IN ('error', 'pending')
		AND NOT EXISTS (SELECT 1 FROM harvest_record k WHERE k.harvest_source_id = r.harvest_source_id
			AND k.identifier = r.identifier AND k.status IN ('success', 'error_validation', 'error_transform')
			AND k.date_created > r.date_created))`

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
