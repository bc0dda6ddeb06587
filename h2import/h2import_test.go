package h2import_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/h2import"
	"github.com/harvester-dev/harvester/h2import/h2dumptest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

const gsaSource = "00000000-0000-0000-0000-0000000000b1"

// TestCurrentState: the import takes H2.0's current state: the newest success row per
// identifier (a newer error row does not count), minus the identifiers whose newest success row
// is a delete; a current record with no dataset row is counted, not imported; a url is
// rewritten; and a second run changes nothing.
func TestCurrentState(t *testing.T) {
	t.Parallel()
	h2 := h2dumptest.Load(t, "h2-gsa-2025-07.sql.gz")
	var deleted, erroredLater, noDataset string
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, h2)
	require.NoError(t, err)
	rows, err := conn.Query(ctx, `SELECT identifier FROM harvest_record ORDER BY identifier LIMIT 3`)
	require.NoError(t, err)
	var ids []string
	for rows.Next() {
		var id string
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	require.NoError(t, conn.Close(ctx))
	deleted, erroredLater, noDataset = ids[0], ids[1], ids[2]
	job := "11111111-1111-4111-8111-111111111111"
	h2dumptest.Exec(t, h2,
		`INSERT INTO harvest_job (id, harvest_source_id, status, job_type, date_created, date_finished)
			VALUES ('`+job+`', '`+gsaSource+`', 'complete', 'harvest', now(), now())`,
		// the deleted identifier's dataset row goes, as H2.0's SYNC removes it
		`DELETE FROM dataset WHERE harvest_record_id IN (SELECT id FROM harvest_record WHERE identifier = '`+deleted+`')`,
		`INSERT INTO harvest_record (id, identifier, harvest_job_id, harvest_source_id, action, status, date_created)
			VALUES ('22222222-2222-4222-8222-222222222222', '`+deleted+`', '`+job+`', '`+gsaSource+`', 'delete', 'success', now())`,
		`INSERT INTO harvest_record (id, identifier, harvest_job_id, harvest_source_id, action, status, date_created, source_raw)
			VALUES ('33333333-3333-4333-8333-333333333333', '`+erroredLater+`', '`+job+`', '`+gsaSource+`', 'update', 'error', now(), '{}')`,
		`DELETE FROM dataset WHERE harvest_record_id IN (SELECT id FROM harvest_record WHERE identifier = '`+noDataset+`')`,
	)

	st := dbtest.Store(t)
	cfg := h2import.Config{From: h2, RewriteURLs: map[string]string{
		"http://127.0.0.1:18093/agency-gsa-2025-07.data.json": "https://gsa.example.gov/data.json"}}
	rep, err := h2import.Run(ctx, cfg, st)
	require.NoError(t, err)
	require.Empty(t, rep.Errors)
	require.Equal(t, 341, rep.Datasets.Created, rep.String())
	require.Equal(t, 341, rep.Records.Created)
	require.Equal(t, 1, rep.NoDataset)
	require.Equal(t, 1, rep.Jobs.Created, "only the job that wrote the current records")
	src, err := st.SourceGet(ctx, gsaSource)
	require.NoError(t, err)
	require.Equal(t, "https://gsa.example.gov/data.json", src.URL)
	for id, live := range map[string]bool{deleted: false, erroredLater: true, noDataset: false} {
		_, err := st.DatasetGet(ctx, &store.DatasetGetParams{SourceID: gsaSource, Identifier: id})
		if live {
			require.NoError(t, err, id)
		} else {
			require.ErrorIs(t, err, store.ErrNotFound, id)
		}
	}
	rec, err := st.RecordLatest(ctx, &store.RecordLatestParams{SourceID: gsaSource, Identifier: erroredLater})
	require.NoError(t, err)
	require.NotEqual(t, "33333333-3333-4333-8333-333333333333", rec.ID, "the success row, not the newer error row")

	again, err := h2import.Run(ctx, cfg, st)
	require.NoError(t, err)
	require.Zero(t, again.Changed(), again.String())
	require.Equal(t, 341, again.Datasets.Unchanged)
}

func TestConfigRequiresFrom(t *testing.T) {
	_, err := h2import.Run(context.Background(), h2import.Config{}, nil)
	require.ErrorIs(t, err, h2import.ErrConfig)
}
