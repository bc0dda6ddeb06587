package assess_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// stores runs f on SQLite and on Postgres.
func stores(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
		require.NoError(t, err)
		t.Cleanup(st.Close)
		require.NoError(t, st.Migrate(t.Context()))
		f(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		f(t, dbtest.Store(t))
	})
}

// TestSaveChecks: checks are folded into the stored state (consecutive failures counted, the
// last OK time kept, a late older check ignored), also within one batch, one row per URL.
func TestSaveChecks(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		u := "https://data.example.gov/" + uuid.NewString()
		other := u + "/other.csv"
		t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		ok := check.Result{URL: u, Status: 200, FinalURL: u + "/final", ContentType: "text/csv",
			ContentLength: 1234, Redirects: 1, CheckedAt: t0, OK: true}
		gone := check.Result{URL: u, Status: 404, FinalURL: u, ContentLength: -1, CheckedAt: t0.Add(time.Hour)}
		refused := check.Result{URL: other, Error: check.Refused, Detail: "connection refused", FinalURL: other,
			ContentLength: -1, CheckedAt: t0}
		require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{ok, refused}))
		require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{gone, gone, refused}))
		gone.CheckedAt = t0.Add(2 * time.Hour)
		require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{gone}))
		late := ok
		late.CheckedAt = t0.Add(-time.Hour)
		require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{late}))

		got, err := st.LinkResultGet(ctx, []string{u, other})
		require.NoError(t, err)
		require.Equal(t, &store.LinkResult{URL: u, Status: 404, FinalURL: u, ContentLength: -1, CheckedAt: gone.CheckedAt,
			LastOKAt: t0, ConsecutiveFailures: 3}, got[u])
		require.Equal(t, &store.LinkResult{URL: other, ErrorClass: "refused", Error: "connection refused", FinalURL: other,
			ContentLength: -1, CheckedAt: t0, ConsecutiveFailures: 2}, got[other])
	})
}
