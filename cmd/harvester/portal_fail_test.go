package main

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract/portaltest"
	"github.com/harvester-dev/harvester/store"
)

// TestPortalListingFailingMidWaySettlesItsRecords (D15): a CKAN listing that fails at once at
// its third page (its count changed), after 200 packages went down the pipeline, ends the job
// only once they settled: its counts are the datasets written, no record is left pending, and
// the next run finds them unchanged (no false updates) and adds the rest.
func TestPortalListingFailingMidWaySettlesItsRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, portaltest.CorpusPackages(t)[0], 300))
	ckan.CountFor = func(start int) int {
		if start == 200 {
			return 301 // no retry: the listing fails as soon as the page is read
		}
		return 300
	}
	failed, code := b.harvest(t, "--source-type", "ckan", "--url", ckan.URL())
	require.Equal(t, exitJobError, code)
	require.Equal(t, "error", failed.Status)
	require.Len(t, failed.JobErrors, 1)
	require.Contains(t, failed.JobErrors[0], "start=200")
	require.Contains(t, failed.JobErrors[0], "the total changed mid-listing")
	written := len(portalDatasetIDs(t, b.st, failed.SourceID))
	require.Equal(t, 200, written, "the two pages listed went through")
	require.Equal(t, written, failed.Added, "the job counts every dataset it wrote")

	conn, err := pgx.Connect(ctx, b.dbURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var pending int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM harvest_record WHERE harvest_job_id = $1 AND status = 'pending'`,
		failed.JobID).Scan(&pending))
	require.Zero(t, pending, "a failed job leaves no pending record")

	ckan.CountFor = nil
	next, code := b.harvest(t, "--source-type", "ckan", "--url", ckan.URL())
	require.Equal(t, exitOK, code, "%+v", next)
	require.Zero(t, next.Updated, "no false updates")
	require.Equal(t, written, next.Unchanged)
	require.Equal(t, 300-written, next.Added)
}

// TestPortalCappedRowsHint: a CKAN that serves 100 packages a page where 1000 were asked for is
// harvested whole, 100 at a time, and the job carries one PortalPageSize warning telling the
// operator to set rows=100.
func TestPortalCappedRowsHint(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, portaltest.CorpusPackages(t)[0], 250))
	ckan.MaxRows = 100
	rep, code := b.harvest(t, "--source-type", "ckan", "--url", ckan.URL(), "--option", "rows=1000")
	require.Equal(t, exitOK, code, "%+v", rep)
	require.Equal(t, 250, rep.Added)
	summary, err := b.st.RecordErrorSummary(context.Background(), rep.JobID)
	require.NoError(t, err)
	require.Equal(t, []*store.RecordErrorCount{{Type: "PortalPageSize", Severity: harvest.SeverityWarning, Count: 1}}, summary)
}
