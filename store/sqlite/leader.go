package sqlite

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// defaultLeaderTTL is the lease of a LeaderAcquire whose TTL is 0.
const defaultLeaderTTL = 30 * time.Second

// LeaderAcquire implements store.Store. The lease row is taken when it is missing or expired,
// and renewed when holder has it.
func (s *Store) LeaderAcquire(ctx context.Context, p *store.LeaderParams) (bool, error) {
	t := time.Now()
	var holder string
	err := s.db.QueryRowContext(ctx, `INSERT INTO scheduler_leader (id, holder, expires_at) VALUES (1, ?1, ?2)
		ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE scheduler_leader.holder = excluded.holder OR scheduler_leader.expires_at <= ?3
		RETURNING holder`, p.Holder, formatTime(t.Add(cmp.Or(p.TTL, defaultLeaderTTL))), formatTime(t)).Scan(&holder)
	err = interpretError(err)
	if errors.Is(err, store.ErrNotFound) { // no row updated: another holder's lease is running
		return false, nil
	}
	return err == nil, err
}

// LeaderRelease implements store.Store.
func (s *Store) LeaderRelease(ctx context.Context, p *store.LeaderParams) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM scheduler_leader WHERE id = 1 AND holder = ?`, p.Holder)
	return interpretError(err)
}
