package postgres

import (
	"context"

	"github.com/harvester-dev/harvester/store"
)

// JobFetchLatest implements store.Store.
func (s *Store) JobFetchLatest(ctx context.Context, sourceID string) (*store.JobFetch, error) {
	var f store.JobFetch
	var jobType, status string
	var url, schemaType, etag, lastModified *string
	err := s.pool.QueryRow(ctx, `
		SELECT id, job_type, status, fetch_url, fetch_schema_type, fetch_etag, fetch_last_modified
		FROM harvest_job
		WHERE harvest_source_id = $1 AND status IN ('complete', 'error')
			AND job_type IN ('harvest', 'force_harvest', 'clear')
		ORDER BY date_created DESC, id DESC LIMIT 1`, sourceID).
		Scan(&f.JobID, &jobType, &status, &url, &schemaType, &etag, &lastModified)
	if err != nil {
		return nil, interpretError(err)
	}
	return store.ReusableFetch(&f, jobType, status, url, schemaType, etag, lastModified)
}

// JobFetchSet implements store.Store.
func (s *Store) JobFetchSet(ctx context.Context, p *store.JobFetch) error {
	tag, err := s.pool.Exec(ctx, `UPDATE harvest_job SET fetch_url = $2, fetch_schema_type = $3,
		fetch_etag = NULLIF($4, ''), fetch_last_modified = NULLIF($5, '') WHERE id = $1`,
		p.JobID, p.URL, string(p.SchemaType), p.ETag, p.LastModified)
	if err != nil {
		return interpretError(err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}
