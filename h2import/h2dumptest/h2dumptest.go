// Package h2dumptest gives tests a Data.gov H2.0 database: one of the pg_dumps of
// ../shared/reference/h2-dump/ (databases H2.0 itself filled by harvesting corpus files) loaded
// into a new database on the test Postgres (HARVESTER_TEST_DATABASE_URL, or DATABASE_URL), as
// store/dbtest gives scratch schemas.
package h2dumptest

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// Load loads the H2.0 dump (../shared/reference/h2-dump/<dump>, a pg_dump of a database
// H2.0 filled itself) into a new database on the test Postgres, dropped at cleanup, and returns
// its URL. The dump uses COPY FROM stdin, so it is loaded with psql.
func Load(t testing.TB, dump string) string {
	t.Helper()
	path := filepath.Join(filepath.Dir(corpustest.Dir(t)), "reference", "h2-dump", dump)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no H2.0 dump %s: %v", path, err)
	}
	psqls, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql")
	psql, err := exec.LookPath("psql")
	if err != nil {
		require.NotEmpty(t, psqls, "psql (Debian's postgresql package) loads the H2.0 dump")
		psql = psqls[len(psqls)-1]
	}
	base := os.Getenv("HARVESTER_TEST_DATABASE_URL")
	if base == "" {
		base = os.Getenv("DATABASE_URL")
	}
	if base == "" {
		if os.Getenv("HARVESTER_TEST_REQUIRE_POSTGRES") != "" {
			t.Fatal("no Postgres for tests: set HARVESTER_TEST_DATABASE_URL")
		}
		t.Skip("no Postgres for tests: set HARVESTER_TEST_DATABASE_URL")
	}
	name := "h2_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	Exec(t, base, "CREATE DATABASE "+name)
	t.Cleanup(func() {
		if conn, err := pgx.Connect(context.Background(), base); err == nil {
			_, _ = conn.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)")
			_ = conn.Close(context.Background())
		}
	})
	u, err := url.Parse(base)
	require.NoError(t, err)
	u.Path = "/" + name
	dbURL := u.String()
	gz, err := os.Open(path)
	require.NoError(t, err)
	defer gz.Close()
	gunzip := exec.Command("gunzip", "-c")
	gunzip.Stdin = gz
	sql, err := gunzip.Output()
	require.NoError(t, err)
	load := exec.Command(psql, "-q", "-v", "ON_ERROR_STOP=1", "-d", dbURL)
	load.Stdin = bytes.NewReader(sql)
	out, err := load.CombinedOutput()
	require.NoError(t, err, "load %s: %s", dump, out)
	return dbURL
}
