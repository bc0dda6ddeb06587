package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

// TestUnreachable: a server that refuses the connection, one that says it is not accepting
// connections yet (57P03, as while it recovers from a crash) and a connection it drops are
// unreachable, also wrapped by a stage; a statement the server refuses, a missing row and a
// cancelled context are not (retrying them waits for nothing).
func TestUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	_, refused := pgx.Connect(t.Context(), "postgres://postgres@"+addr+"/x?sslmode=disable&connect_timeout=5")
	require.Error(t, refused)

	conn, err := pgx.Connect(t.Context(), dbtest.URL(t))
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, syntax := conn.Exec(t.Context(), "SELEKT 1")
	require.Error(t, syntax)
	_, shutdown := conn.Exec(t.Context(), "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '57P03'; END $$")
	require.Error(t, shutdown)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	_, canceledErr := conn.Exec(cancelled, "SELECT 1")
	require.Error(t, canceledErr)

	for name, c := range map[string]struct {
		err  error
		want bool
	}{
		"connection refused":        {refused, true},
		"refused, wrapped by SYNC":  {fmt.Errorf("upsert dataset: %w", refused), true},
		"not accepting connections": {shutdown, true},
		"dropped connection":        {&pgconn.PgError{Code: "08006"}, true},
		"syntax error":              {syntax, false},
		"no row":                    {store.ErrNotFound, false},
		"cancelled":                 {canceledErr, false},
		"nil":                       {nil, false},
		"other":                     {errors.New("boom"), false},
	} {
		require.Equal(t, c.want, postgres.Unreachable(c.err), "%s: %v", name, c.err)
	}
}
