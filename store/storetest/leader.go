package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// acquire calls LeaderAcquire and returns whether holder leads.
func acquire(t *testing.T, s store.Store, p *store.LeaderParams) bool {
	t.Helper()
	ok, err := s.LeaderAcquire(t.Context(), p)
	require.NoError(t, err)
	return ok
}

// testLeaderExclusive: one holder leads at a time, across Store instances of one database,
// until it releases.
func testLeaderExclusive(t *testing.T, s store.Store) {
	ctx := t.Context()
	other := otherInstance(t, s)
	a, b := &store.LeaderParams{Holder: "scheduler-a"}, &store.LeaderParams{Holder: "scheduler-b"}

	require.True(t, acquire(t, s, a))
	require.True(t, acquire(t, s, a), "the leader keeps leading on every tick")
	require.False(t, acquire(t, other, b), "another process is refused")
	require.False(t, acquire(t, s, b), "another holder of the same process is refused")
	require.NoError(t, other.LeaderRelease(ctx, b), "releasing what one does not hold is a no-op")
	require.True(t, acquire(t, s, a))

	require.NoError(t, s.LeaderRelease(ctx, a))
	require.True(t, acquire(t, other, b), "the lead is free once released")
	require.True(t, acquire(t, other, b))
	require.False(t, acquire(t, s, a))

	require.NoError(t, other.LeaderRelease(ctx, b))
	require.NoError(t, other.LeaderRelease(ctx, b), "releasing twice")
	require.True(t, acquire(t, s, a))
}

// testLeaderCloseWithoutRelease: a leader that goes away without releasing loses the lead: at
// once with Postgres (its session ends), after its lease's TTL with SQLite.
func testLeaderCloseWithoutRelease(t *testing.T, s store.Store) {
	gone := otherInstance(t, s)
	require.True(t, acquire(t, gone, &store.LeaderParams{Holder: "scheduler-a", TTL: 2 * time.Second}))
	b := &store.LeaderParams{Holder: "scheduler-b"}
	require.False(t, acquire(t, s, b))

	gone.Close()
	require.Eventually(t, func() bool {
		ok, err := s.LeaderAcquire(t.Context(), b)
		return err == nil && ok
	}, 15*time.Second, 20*time.Millisecond)
	require.True(t, acquire(t, s, b))
}
