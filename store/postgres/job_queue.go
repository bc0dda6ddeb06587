package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// JobHeartbeat implements store.Store.
func (s *Store) JobHeartbeat(ctx context.Context, jobID string) error {
	return sqlstore.ExecOne(ctx, s.q, `UPDATE harvest_job SET heartbeat_at = now() WHERE id = $1`, jobID)
}

// JobCountBehind implements store.Store.
func (s *Store) JobCountBehind(ctx context.Context, jobID string, settled int) (int, error) {
	var n int
	err := s.q.QueryRow(ctx, `SELECT count(*) FROM harvest_job WHERE status = 'in_progress'
		AND records_settled < $1 AND id <> $2`, settled, jobID).Scan(&n)
	return n, err
}

// JobListOrphaned implements store.Store.
func (s *Store) JobListOrphaned(ctx context.Context, p *store.JobListOrphanedParams) ([]*store.HarvestJob, error) {
	return sqlstore.Collect(s.q.Query(ctx, `SELECT `+sqlstore.JobColumns+` FROM harvest_job
		WHERE status = 'in_progress' AND (heartbeat_at IS NULL OR heartbeat_at < $1)
		ORDER BY heartbeat_at NULLS FIRST, id`, p.Before), scan.Job)
}

// JobStartQueued implements store.Store. Every caller takes the same transaction-scoped
// advisory lock before it counts, so two callers never both see room for the same slot;
// SKIP LOCKED leaves alone a new job that JobFail is ending at the same moment.
func (s *Store) JobStartQueued(ctx context.Context, p *store.JobStartQueuedParams) ([]*store.HarvestJob, error) {
	var started []*store.HarvestJob
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`,
			startQueuedLockClass); err != nil {
			return err
		}
		var running int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM harvest_job WHERE status = 'in_progress'`).Scan(&running); err != nil {
			return err
		}
		if running >= p.MaxInProgress {
			return nil
		}
		var err error
		started, err = sqlstore.Collect(querier{tx}.Query(ctx, `WITH started AS (
				UPDATE harvest_job SET status = 'in_progress', heartbeat_at = now()
				WHERE id IN (SELECT id FROM harvest_job WHERE status = 'new'
					ORDER BY date_created, id LIMIT $1 FOR UPDATE SKIP LOCKED)
				RETURNING `+sqlstore.JobColumns+`)
			SELECT * FROM started ORDER BY date_created, id`, p.MaxInProgress-running), scan.Job)
		return err
	})
	return started, interpretError(err)
}

// JobRedrive implements store.Store.
func (s *Store) JobRedrive(ctx context.Context, p *store.JobRedriveParams) (*store.HarvestJob, bool, error) {
	job, err := scan.Job(s.q.QueryRow(ctx, `UPDATE harvest_job SET redrives = redrives + 1, heartbeat_at = now()
		WHERE id = $1 AND status = 'in_progress' AND (heartbeat_at IS NULL OR heartbeat_at < $2) AND redrives < $3
		RETURNING `+sqlstore.JobColumns, p.JobID, p.Before, p.Max))
	return sqlstore.JobChanged(job, err, func() (*store.HarvestJob, error) { return s.JobGet(ctx, p.JobID) })
}
