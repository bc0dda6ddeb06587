package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/harvester-dev/harvester/store"
)

// leaderQueryTimeout bounds the queries that give the leader lock up, which run on a context
// of their own (Close has none).
const leaderQueryTimeout = 5 * time.Second

// LeaderAcquire implements store.Store. The leader lock is a session-level advisory lock, held
// by a connection taken out of the pool for as long as holder leads: when that connection (or
// the process) dies, the server releases the lock and another scheduler can take over.
func (s *Store) LeaderAcquire(ctx context.Context, p *store.LeaderParams) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if conn := s.leaders[p.Holder]; conn != nil {
		if conn.Ping(ctx) == nil {
			return true, nil
		}
		// The session is gone, and its lock with it (or ctx ended mid-ping): close the
		// connection for sure and compete again.
		delete(s.leaders, p.Holder)
		destroy(conn)
		if err := ctx.Err(); err != nil {
			return false, err
		}
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return false, interpretError(err)
	}
	var ok bool
	err = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext(current_schema()))`, leaderLockClass).Scan(&ok)
	switch {
	case err != nil:
		destroy(conn) // it may hold the lock if only the reply was lost
		return false, interpretError(err)
	case !ok:
		conn.Release()
		return false, nil
	}
	s.leaders[p.Holder] = conn
	return true, nil
}

// LeaderRelease implements store.Store.
func (s *Store) LeaderRelease(_ context.Context, p *store.LeaderParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if conn := s.leaders[p.Holder]; conn != nil {
		delete(s.leaders, p.Holder)
		unlockLeader(context.Background(), conn)
	}
	return nil
}

// unlockLeader releases the leader lock held by conn's session and returns conn to the pool;
// if that fails, it closes conn, which ends the session and so releases the lock too. It runs
// on its own context so that a cancelled caller cannot leave the lock behind in an idle pooled
// connection.
func unlockLeader(ctx context.Context, conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(ctx, leaderQueryTimeout)
	defer cancel()
	var released bool
	err := conn.QueryRow(ctx, `SELECT pg_advisory_unlock($1, hashtext(current_schema()))`, leaderLockClass).Scan(&released)
	if err != nil || !released {
		destroy(conn)
		return
	}
	conn.Release()
}

// destroy takes conn out of the pool and closes it, ending its session.
func destroy(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), leaderQueryTimeout)
	defer cancel()
	_ = conn.Hijack().Close(ctx)
}
