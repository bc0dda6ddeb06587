package storetest

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// testDatabaseID: a database has one identity, a UUID made by its migrations, that every
// instance (process) reads the same, that migrating again keeps, and that another database
// does not share.
func testDatabaseID(t *testing.T, s store.Store) {
	ctx := t.Context()
	id, err := s.DatabaseID(ctx)
	require.NoError(t, err)
	_, err = uuid.Parse(id)
	require.NoError(t, err, "a UUID: %q", id)
	again, err := s.DatabaseID(ctx)
	require.NoError(t, err)
	require.Equal(t, id, again)

	other, err := otherInstance(t, s).DatabaseID(ctx)
	require.NoError(t, err)
	require.Equal(t, id, other, "another process of the same database")
	require.NoError(t, s.Migrate(ctx))
	after, err := s.DatabaseID(ctx)
	require.NoError(t, err)
	require.Equal(t, id, after, "migrating again keeps the identity")

	elsewhere, err := otherDatabase(t, s).DatabaseID(ctx)
	require.NoError(t, err)
	require.NotEqual(t, id, elsewhere, "another database has another identity")
}
