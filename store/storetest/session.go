package storetest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// testSessionLifecycle: an inserted session is found, by every Store instance of the
// database, until it is deleted; a taken ID is a conflict; deleting twice is no error.
func testSessionLifecycle(t *testing.T, s store.Store) {
	ctx := t.Context()
	other := otherInstance(t, s)
	id := "session-" + uuid.NewString()
	exp := time.Now().Add(time.Hour).Truncate(time.Microsecond)
	require.NoError(t, s.SessionInsert(ctx, &store.SessionInsertParams{ID: id, ExpiresAt: exp}))
	require.ErrorIs(t, s.SessionInsert(ctx, &store.SessionInsertParams{ID: id, ExpiresAt: exp}), store.ErrConflict)
	for _, st := range []store.Store{s, other} {
		sess, err := st.SessionGet(ctx, id)
		require.NoError(t, err)
		require.Equal(t, id, sess.ID)
		require.True(t, exp.Equal(sess.ExpiresAt), "expires at %v, want %v", sess.ExpiresAt, exp)
	}
	_, err := s.SessionGet(ctx, "session-never-inserted")
	require.ErrorIs(t, err, store.ErrNotFound)

	require.NoError(t, other.SessionDelete(ctx, id), "deleted by another process")
	for _, st := range []store.Store{s, other} {
		_, err := st.SessionGet(ctx, id)
		require.ErrorIs(t, err, store.ErrNotFound, "a deleted session is gone")
	}
	require.NoError(t, s.SessionDelete(ctx, id), "deleting twice")
}

// testSessionExpired: a session is not found once it has expired, and inserting another
// deletes it.
func testSessionExpired(t *testing.T, s store.Store) {
	ctx := t.Context()
	old, live := "session-"+uuid.NewString(), "session-"+uuid.NewString()
	require.NoError(t, s.SessionInsert(ctx, &store.SessionInsertParams{ID: old, ExpiresAt: time.Now().Add(-time.Second)}))
	_, err := s.SessionGet(ctx, old)
	require.ErrorIs(t, err, store.ErrNotFound, "expired")
	require.NoError(t, s.SessionInsert(ctx, &store.SessionInsertParams{ID: live, ExpiresAt: time.Now().Add(time.Hour)}))
	require.NoError(t, s.SessionInsert(ctx, &store.SessionInsertParams{ID: old, ExpiresAt: time.Now().Add(time.Hour)}),
		"the expired row was deleted, so its ID is free again")
	_, err = s.SessionGet(ctx, live)
	require.NoError(t, err)
}
