package postgres_test

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
	"github.com/harvester-dev/harvester/store/storetest"
)

// TestConformance runs the store conformance suite, each case on a fresh migrated schema.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (store.Store, func(t *testing.T) store.Store) {
		url := dbtest.URL(t)
		st := dbtest.Open(t, url)
		require.NoError(t, st.Migrate(t.Context()))
		return st, func(t *testing.T) store.Store { return dbtest.Open(t, url) }
	})
}

// TestLeaderConnectionLost: when the session holding the leader lock dies, the server frees the
// lock; the old leader notices on its next tick, drops the dead connection and competes again.
func TestLeaderConnectionLost(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := dbtest.URL(t)
	s := dbtest.Open(t, url)
	require.NoError(t, s.Migrate(ctx))
	other := dbtest.Open(t, url)
	a, b := &store.LeaderParams{Holder: "scheduler-a"}, &store.LeaderParams{Holder: "scheduler-b"}
	acquire := func(st store.Store, p *store.LeaderParams) bool {
		t.Helper()
		ok, err := st.LeaderAcquire(ctx, p)
		require.NoError(t, err)
		return ok
	}
	require.True(t, acquire(s, a))

	// End the lock holder's session, as a network failure or a server restart would.
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var killed int
	err = conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = hashtext(current_schema())::oid
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
		postgres.LeaderLockClass).Scan(&killed)
	require.NoError(t, err)
	require.Equal(t, 1, killed)

	require.Eventually(t, func() bool {
		ok, err := other.LeaderAcquire(ctx, b)
		return err == nil && ok
	}, 10*time.Second, 20*time.Millisecond, "the lock went with the session")
	require.False(t, acquire(s, a), "a dropped its dead connection and lost the race")
	require.NoError(t, other.LeaderRelease(ctx, b))
	require.True(t, acquire(s, a), "a leads again on a new connection")
}

// TestMigrateConcurrent: processes that start together on an empty schema migrate it once,
// one after the other, and all succeed; the schema is then at the newest migration, each applied once.
func TestMigrateConcurrent(t *testing.T) {
	t.Parallel()
	url := dbtest.URL(t)
	const n = 4
	stores := make([]*postgres.Store, n)
	for i := range stores {
		stores[i] = dbtest.Open(t, url)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, st := range stores {
		wg.Go(func() { errs[i] = st.Migrate(t.Context()) })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}

	// The schema is at the newest migration, each applied once, whichever process ran it.
	want := migrationVersions(t)
	conn, err := pgx.Connect(t.Context(), url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(),
		`SELECT version_id FROM goose_db_version WHERE is_applied AND version_id > 0 ORDER BY id`)
	require.NoError(t, err)
	applied, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	require.Equal(t, want, applied, "every migration applied once, in order")
	var tables int
	require.NoError(t, conn.QueryRow(t.Context(), `SELECT count(*) FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_name IN ('harvest_source', 'harvest_job', 'dataset')`).Scan(&tables))
	require.Equal(t, 3, tables, "the tables are in the test's own schema")
}

// migrationVersions returns the versions of the embedded migrations (migration/NNN_name.sql),
// in order.
func migrationVersions(t *testing.T) []int64 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("migration", "*.sql"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var out []int64
	for _, f := range files {
		n, _, ok := strings.Cut(filepath.Base(f), "_")
		require.True(t, ok, f)
		v, err := strconv.ParseInt(n, 10, 64)
		require.NoError(t, err, f)
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// TestPoolSize: the pool has DefaultMaxConns connections unless the URL says otherwise.
func TestPoolSize(t *testing.T) {
	url := dbtest.URL(t)
	st, err := postgres.Open(t.Context(), url)
	require.NoError(t, err)
	defer st.Close()
	require.EqualValues(t, postgres.DefaultMaxConns, st.MaxConns())

	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	small, err := postgres.Open(t.Context(), url+sep+"pool_max_conns=3")
	require.NoError(t, err)
	defer small.Close()
	require.EqualValues(t, 3, small.MaxConns())
}

// TestMigrateFirstPublishedBackfill: the first-published table is filled from the records there
// are (storetest.FirstPublishedBackfill).
func TestMigrateFirstPublishedBackfill(t *testing.T) {
	t.Parallel()
	st := dbtest.Open(t, dbtest.URL(t))
	exec := postgres.MigrateTo(t, st, storetest.FirstPublishedBackfillFrom)
	storetest.FirstPublishedBackfill(t, st, exec, func(at time.Time) any { return at })
}
