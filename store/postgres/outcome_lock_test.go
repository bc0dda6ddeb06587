package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

// TestSettleLockLetsInsertsThrough: while a settle batch holds its job's row (its transaction
// still open), other stages insert rows for that job: EXTRACT's seen identifiers and COMPARE's
// harvest_record (their foreign keys to harvest_job take FOR KEY SHARE on the row). With FOR
// UPDATE those inserts waited for the settle to commit; a second settle of the job still waits.
func TestSettleLockLetsInsertsThrough(t *testing.T) {
	t.Parallel()
	url := dbtest.URL(t)
	st := dbtest.Open(t, url)
	require.NoError(t, st.Migrate(t.Context()))
	src, err := st.SourceEnsure(t.Context(), &store.SourceEnsureParams{Name: "s", URL: "https://example.gov/lock/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(t.Context(), &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)

	settle, err := pgx.Connect(t.Context(), url)
	require.NoError(t, err)
	defer settle.Close(context.Background())
	tx, err := settle.Begin(t.Context())
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(context.Background()) }()
	rows, err := tx.Query(t.Context(), postgres.LockJobsSQL, []string{job.ID})
	require.NoError(t, err)
	rows.Close()
	require.NoError(t, rows.Err())

	other, err := pgx.Connect(t.Context(), url)
	require.NoError(t, err)
	defer other.Close(context.Background())
	// A wait would end in a lock timeout error, not in a pass: the bound only keeps a broken
	// build from hanging.
	_, err = other.Exec(t.Context(), `SET lock_timeout = '10s'`)
	require.NoError(t, err)
	_, err = other.Exec(t.Context(), `INSERT INTO harvest_job_identifier (harvest_job_id, identifier) VALUES ($1, 'a')`, job.ID)
	require.NoError(t, err, "EXTRACT's insert does not wait for the settle")
	_, err = other.Exec(t.Context(), `INSERT INTO harvest_record (id, harvest_job_id, harvest_source_id, identifier, action,
		status) VALUES (gen_random_uuid(), $1, $2, 'a', 'create', 'pending')`, job.ID, src.ID)
	require.NoError(t, err, "COMPARE's insert does not wait for the settle")

	_, err = other.Exec(t.Context(), `SET lock_timeout = '50ms'`)
	require.NoError(t, err)
	_, err = other.Exec(t.Context(), `SELECT 1 FROM harvest_job WHERE id = $1 FOR NO KEY UPDATE`, job.ID)
	require.ErrorContains(t, err, "lock timeout", "a second settle of the job waits for the first")
}
