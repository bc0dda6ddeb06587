package postgres

import (
	"io/fs"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"
)

// LeaderLockClass is the leader lock's first key, for tests that look for it in pg_locks.
const LeaderLockClass = leaderLockClass

// LockJobsSQL is the statement by which a settle batch locks its jobs.
const LockJobsSQL = lockJobsSQL

// RecordCompareSQL is RecordCompareBatch's statement, for the plan test.
var RecordCompareSQL = recordCompareSQL

// MigrateTo applies the embedded migrations up to version only, and returns a function that runs
// a statement on the database: for a test of a migration's data.
func MigrateTo(t *testing.T, s *Store, version int64) func(query string, args ...any) {
	t.Helper()
	db := stdlib.OpenDBFromPool(s.pool)
	t.Cleanup(func() { _ = db.Close() })
	sub, err := fs.Sub(migrations, "migration")
	require.NoError(t, err)
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub)
	require.NoError(t, err)
	_, err = p.UpTo(t.Context(), version)
	require.NoError(t, err)
	return func(query string, args ...any) {
		t.Helper()
		_, err := s.pool.Exec(t.Context(), query, args...)
		require.NoError(t, err, query)
	}
}
