package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
	"github.com/harvester-dev/harvester/store/postgres"
)

// TestGenericPlansOnEmptyTables: the per-batch lookups of a first harvest (COMPARE's
// RecordCompareBatch, SYNC's DatasetDuplicatePossible) keep reading by index in a generic plan
// made while the tables are empty, which is when a first harvest's connections make theirs (the
// sixth call of a prepared statement). Without the OFFSET 0 fences that plan hash-joined
// harvest_record or hashed a subplan over dataset: a sequential scan of the whole table on every
// call for as long as the plan stayed cached (measured: 2.2 ms a batch instead of 0.1).
func TestGenericPlansOnEmptyTables(t *testing.T) {
	t.Parallel()
	conn := genericPlanConn(t)

	for name, stmt := range map[string]struct {
		sql  string
		args string
	}{
		"RecordCompareBatch": {postgres.RecordCompareSQL, "('{}', '{}', '{}')"},
		"DatasetDuplicatePossible": {`SELECT d.id::text FROM dataset d WHERE d.id = ANY($1::uuid[]) AND ` +
			sqlstore.DuplicatePossible(" OFFSET 0"), "('{}')"},
	} {
		_, err := conn.Exec(t.Context(), "PREPARE p AS "+stmt.sql)
		require.NoError(t, err, name)
		rows, err := conn.Query(t.Context(), "EXPLAIN EXECUTE p"+stmt.args)
		require.NoError(t, err, name)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err, name)
		plan := strings.Join(lines, "\n")
		for _, bad := range []string{"Seq Scan on harvest_record", "Seq Scan on dataset", "hashed SubPlan", "Hash Join", "Hash Right Join"} {
			require.NotContains(t, plan, bad, "%s's generic plan:\n%s", name, plan)
		}
		require.Contains(t, plan, "Index", name)
		_, err = conn.Exec(t.Context(), "DEALLOCATE p")
		require.NoError(t, err)
	}
}

// TestPrunePageReadsByIndex: a prune pass's page (the ids after the last page's, in id order)
// is read from the table's primary key in a generic plan, a page at a time. With ORDER BY
// naming the output column CAST(id AS TEXT) the plan sorted the text of every id after $1: each
// page a sequential scan of the whole table, so a pass over N records read N²/1000 rows (at
// 40,000 records 33 ms a page instead of 1).
func TestPrunePageReadsByIndex(t *testing.T) {
	t.Parallel()
	conn := genericPlanConn(t)

	for _, table := range []string{"harvest_record", "harvest_job"} {
		_, err := conn.Exec(t.Context(), "PREPARE p AS "+sqlstore.PrunePageSQL(table))
		require.NoError(t, err, table)
		rows, err := conn.Query(t.Context(), "EXPLAIN EXECUTE p('00000000-0000-0000-0000-000000000000', 1000)")
		require.NoError(t, err, table)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err, table)
		plan := strings.Join(lines, "\n")
		require.NotContains(t, plan, "Sort", "%s's page:\n%s", table, plan)
		require.NotContains(t, plan, "Seq Scan", "%s's page:\n%s", table, plan)
		require.Contains(t, plan, table+"_pkey", "%s's page:\n%s", table, plan)
		_, err = conn.Exec(t.Context(), "DEALLOCATE p")
		require.NoError(t, err)
	}
}

// genericPlanConn is a connection to a migrated test database whose prepared statements are
// planned generically at once (plan_cache_mode), as a pool's are from their sixth call.
func genericPlanConn(t *testing.T) *pgx.Conn {
	t.Helper()
	url := dbtest.URL(t)
	st := dbtest.Open(t, url)
	require.NoError(t, st.Migrate(t.Context()))
	conn, err := pgx.Connect(t.Context(), url)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	_, err = conn.Exec(t.Context(), "SET plan_cache_mode = force_generic_plan")
	require.NoError(t, err)
	return conn
}
