package sqlite

import (
	"context"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// JobFetchGet implements store.Store.
func (s *Store) JobFetchGet(ctx context.Context, jobID string) (*store.JobFetch, error) {
	return sqlstore.Fetch(scan.JobFetch(s.q.QueryRow(ctx, `SELECT `+sqlstore.JobFetchColumns+` FROM harvest_job
		WHERE id = ?`, jobID)))
}

// JobFetchLatest implements store.Store.
func (s *Store) JobFetchLatest(ctx context.Context, sourceID string) (*store.JobFetch, error) {
	return scan.JobFetchLatest(ctx, s.q, "?1", sourceID)
}

// JobFetchSet implements store.Store.
func (s *Store) JobFetchSet(ctx context.Context, p *store.JobFetch) error {
	return sqlstore.ExecOne(ctx, s.q, `UPDATE harvest_job SET fetch_url = ?2, fetch_schema_type = ?3,
		fetch_etag = NULLIF(?4, ''), fetch_last_modified = NULLIF(?5, ''), fetch_not_modified = ?6,
		fetch_graph_hash = NULLIF(?7, '')
		WHERE id = ?1`, p.JobID, p.URL, string(p.SchemaType), p.ETag, p.LastModified, p.NotModified, p.GraphHash)
}
