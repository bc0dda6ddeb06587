package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
	"github.com/harvester-dev/harvester/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		ctx := context.Background()
		st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "harvester.db"))
		require.NoError(t, err)
		t.Cleanup(st.Close)
		require.NoError(t, st.Migrate(ctx))
		return st
	})
}
