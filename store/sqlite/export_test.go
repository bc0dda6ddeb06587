package sqlite

import (
	"io/fs"
	"testing"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"
)

// MigrateTo applies the embedded migrations up to version only, and returns a function that runs
// a statement on the database: for a test of a migration's data.
func MigrateTo(t *testing.T, s *Store, version int64) func(query string, args ...any) {
	t.Helper()
	sub, err := fs.Sub(migrations, "migration")
	require.NoError(t, err)
	p, err := goose.NewProvider(goose.DialectSQLite3, s.db, sub)
	require.NoError(t, err)
	_, err = p.UpTo(t.Context(), version)
	require.NoError(t, err)
	return func(query string, args ...any) {
		t.Helper()
		_, err := s.db.ExecContext(t.Context(), query, args...)
		require.NoError(t, err, query)
	}
}

// TimeArg is a time as this backend stores it.
func TimeArg(at time.Time) any { return formatTime(at) }
