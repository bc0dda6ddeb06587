// Package dbtest gives tests a real, empty, migrated Postgres database of their own: a fresh
// schema in the server named by HARVESTER_TEST_DATABASE_URL (or DATABASE_URL), dropped when the
// test ends. scripts/test.sh starts that server and sets HARVESTER_TEST_REQUIRE_POSTGRES=1, so
// in CI a missing server fails the tests. A plain `go test ./...` with no server configured
// skips the Postgres tests and still runs everything else (SQLite, in-process NATS).
package dbtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store/postgres"
)

// ServerURL returns the URL of the test Postgres server: HARVESTER_TEST_DATABASE_URL, else
// DATABASE_URL. With neither set the test is skipped, or fails when
// HARVESTER_TEST_REQUIRE_POSTGRES is set.
func ServerURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv("HARVESTER_TEST_DATABASE_URL")
	if base == "" {
		base = os.Getenv("DATABASE_URL")
	}
	if base == "" {
		msg := "no Postgres for tests: run scripts/test.sh, or set HARVESTER_TEST_DATABASE_URL " +
			"(eval \"$(scripts/services.sh)\" starts one)"
		if os.Getenv("HARVESTER_TEST_REQUIRE_POSTGRES") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return base
}

// Scratch runs the statement create (e.g. CREATE SCHEMA s) on the server at base, and drop
// when the test ends (its error ignored: the server may be gone).
func Scratch(t testing.TB, base, create, drop string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	require.NoError(t, err, "connect to test Postgres")
	_, err = conn.Exec(ctx, create)
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		_, _ = conn.Exec(context.Background(), drop)
	})
}

// URL returns a database URL whose search_path is a new, empty schema, dropped at cleanup.
func URL(t testing.TB) string {
	t.Helper()
	base := ServerURL(t)
	schema := "t_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	Scratch(t, base, "CREATE SCHEMA "+schema, "DROP SCHEMA "+schema+" CASCADE")
	u, err := url.Parse(base)
	require.NoError(t, err)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Store returns a migrated postgres.Store on a fresh schema, closed at cleanup.
func Store(t testing.TB) *postgres.Store {
	t.Helper()
	st := Open(t, URL(t))
	require.NoError(t, st.Migrate(context.Background()), fmt.Sprintf("migrate %T", st))
	return st
}

// Open returns a postgres.Store on the database at url (from URL), closed at cleanup: with the
// URL of another test's Store, a second instance of the same schema, as another process has.
func Open(t testing.TB, url string) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(st.Close)
	return st
}
