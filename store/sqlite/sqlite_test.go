package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
	"github.com/harvester-dev/harvester/store/storetest"
)

// open opens the database file at path, closed at t's cleanup.
func open(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path)
	require.NoError(t, err)
	t.Cleanup(st.Close)
	return st
}

// newStore returns a migrated store on a new file, and a function that opens the file again.
func newStore(t *testing.T) (store.Store, func(t *testing.T) store.Store) {
	path := filepath.Join(t.TempDir(), "harvester.db")
	st := open(t, path)
	require.NoError(t, st.Migrate(t.Context()))
	return st, func(t *testing.T) store.Store { return open(t, path) }
}

func TestConformance(t *testing.T) {
	storetest.Run(t, newStore)
}

// TestLeaderLeaseExpires: a lease that is not renewed within its TTL passes to another holder,
// while a renewed one does not.
func TestLeaderLeaseExpires(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, reopen := newStore(t)
	other := reopen(t)
	a := &store.LeaderParams{Holder: "scheduler-a", TTL: time.Second}
	b := &store.LeaderParams{Holder: "scheduler-b"}

	ok, err := s.LeaderAcquire(ctx, a)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = other.LeaderAcquire(ctx, b)
	require.NoError(t, err)
	require.False(t, ok, "the lease runs")

	require.Eventually(t, func() bool {
		ok, err := other.LeaderAcquire(ctx, b)
		return err == nil && ok
	}, 10*time.Second, 20*time.Millisecond, "the lease expires")
	ok, err = s.LeaderAcquire(ctx, a)
	require.NoError(t, err)
	require.False(t, ok, "b's lease (default TTL) runs")
}

// TestMigrateFirstPublishedBackfill: the first-published table is filled from the records there
// are (storetest.FirstPublishedBackfill).
func TestMigrateFirstPublishedBackfill(t *testing.T) {
	t.Parallel()
	st := open(t, filepath.Join(t.TempDir(), "harvester.db"))
	exec := sqlite.MigrateTo(t, st, storetest.FirstPublishedBackfillFrom)
	storetest.FirstPublishedBackfill(t, st, exec, sqlite.TimeArg)
}
