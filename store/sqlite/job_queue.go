package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"slices"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// JobHeartbeat implements store.Store.
func (s *Store) JobHeartbeat(ctx context.Context, jobID string) error {
	return sqlstore.ExecOne(ctx, s.q, `UPDATE harvest_job SET heartbeat_at = ? WHERE id = ?`, now(), jobID)
}

// JobCountBehind implements store.Store.
func (s *Store) JobCountBehind(ctx context.Context, jobID string, settled int) (int, error) {
	var n int
	err := s.q.QueryRow(ctx, `SELECT count(*) FROM harvest_job WHERE status = 'in_progress'
		AND records_settled < ? AND id <> ?`, settled, jobID).Scan(&n)
	return n, err
}

// JobListOrphaned implements store.Store.
func (s *Store) JobListOrphaned(ctx context.Context, p *store.JobListOrphanedParams) ([]*store.HarvestJob, error) {
	return sqlstore.Collect(s.q.Query(ctx, `SELECT `+sqlstore.JobColumns+` FROM harvest_job
		WHERE status = 'in_progress' AND (heartbeat_at IS NULL OR heartbeat_at < ?)
		ORDER BY heartbeat_at, id`, formatTime(p.Before)), scan.Job)
}

// JobStartQueued implements store.Store. The transaction begins IMMEDIATE (see inTx), which
// takes the database's write lock before the count: callers are serialised.
func (s *Store) JobStartQueued(ctx context.Context, p *store.JobStartQueuedParams) ([]*store.HarvestJob, error) {
	var started []*store.HarvestJob
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var running int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM harvest_job WHERE status = 'in_progress'`).Scan(&running)
		if err != nil || running >= p.MaxInProgress {
			return err
		}
		started, err = sqlstore.Collect(querier{tx}.Query(ctx, `UPDATE harvest_job SET status = 'in_progress', heartbeat_at = ?
			WHERE id IN (SELECT id FROM harvest_job WHERE status = 'new' ORDER BY date_created, id LIMIT ?)
			RETURNING `+sqlstore.JobColumns, now(), p.MaxInProgress-running), scan.Job)
		return err
	})
	if err != nil {
		return nil, interpretError(err)
	}
	// RETURNING gives no order.
	slices.SortFunc(started, func(a, b *store.HarvestJob) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return started, nil
}

// JobRedrive implements store.Store.
func (s *Store) JobRedrive(ctx context.Context, p *store.JobRedriveParams) (*store.HarvestJob, bool, error) {
	job, err := scan.Job(s.q.QueryRow(ctx, `UPDATE harvest_job SET redrives = redrives + 1, heartbeat_at = ?
		WHERE id = ? AND status = 'in_progress' AND (heartbeat_at IS NULL OR heartbeat_at < ?) AND redrives < ?
		RETURNING `+sqlstore.JobColumns, now(), p.JobID, formatTime(p.Before), p.Max))
	return sqlstore.JobChanged(job, err, func() (*store.HarvestJob, error) { return s.JobGet(ctx, p.JobID) })
}
