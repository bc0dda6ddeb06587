package extract_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/stages/extract/portaltest"
	"github.com/harvester-dev/harvester/store"
)

// portal is the portal source of that type at url, with the portal items' schema type
// (non-federal DCAT-US, the harvest command's default for a portal).
func portal(sourceType harvest.SourceType, url string) pipelinetest.Source {
	return pipelinetest.Source{URL: url, SourceType: sourceType, SchemaType: pipelinetest.NonFederal}
}

// TestHarvestCKANPortal: a CKAN portal through every stage on Postgres and NATS: the first run
// adds every package that validates as non-federal DCAT-US (the rest are validation errors
// naming the field they lack), the second is all unchanged, a package the portal dropped is
// deleted, and a listing that ends short of its count fails and deletes nothing.
func TestHarvestCKANPortal(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ckan := portaltest.NewCKAN(t, portaltest.CorpusPackages(t))
	harvestCKAN := func() pipelinetest.Report { return h.Harvest(t, portal(harvest.SourceCKAN, ckan.URL())) }

	first := harvestCKAN()
	require.Equal(t, "complete", first.Status, "%+v", first)
	require.Equal(t, 13, first.Total)
	require.Equal(t, 9, first.Added, "DataSud's 7, EnviDat's and catalog.data.gov's package")
	require.Equal(t, 4, first.Errored, "4 packages lack a publisher or contact point")
	require.Equal(t, 9, first.Validated)
	src, err := h.Store.SourceGet(context.Background(), first.SourceID)
	require.NoError(t, err)
	require.Equal(t, "ckan", string(src.SourceType))
	require.Equal(t, pipelinetest.NonFederal, src.SchemaType, "a portal's schema type is non-federal")
	d, err := h.Store.DatasetGet(context.Background(), &store.DatasetGetParams{SourceID: first.SourceID,
		Identifier: ckan.URL() + "/dataset/cfa98601-185f-4194-bc0f-119fc23a194b"})
	require.NoError(t, err)
	var dcat map[string]any
	require.NoError(t, json.Unmarshal(d.DCAT, &dcat))
	require.Equal(t, "Canispaces - Ville de Gap", dcat["title"])
	require.Equal(t, ckan.URL()+"/dataset/canispaces----ville-de-gap", dcat["landingPage"])
	rec, err := h.Store.RecordGet(context.Background(), d.RecordID)
	require.NoError(t, err)
	require.Contains(t, rec.SourceRaw, `"owner_org"`, "source_raw is the package as served")

	second := harvestCKAN()
	pipelinetest.MustComplete(t, second)
	require.Equal(t, 9, second.Unchanged)
	require.Equal(t, 4, second.Errored, "invalid packages stay errored")
	require.Zero(t, second.Added+second.Updated+second.Deleted)

	pkgs := portaltest.CorpusPackages(t)
	ckan.SetPackages(t, pkgs[1:]) // DataSud's first package leaves the portal
	third := harvestCKAN()
	pipelinetest.MustComplete(t, third)
	require.Equal(t, 1, third.Deleted)
	require.Equal(t, 8, third.Unchanged)
	require.Len(t, h.LiveIdentifiers(t, first.SourceID), 8)

	ckan.CountFor = func(int) int { return 20 } // the portal says 20, serves 12
	short := harvestCKAN()
	require.Equal(t, "error", short.Status)
	require.Len(t, short.JobErrors, 1)
	require.Contains(t, short.JobErrors[0], "ended short of its total: 12 distinct items listed (12 served), the portal reported 20")
	require.Zero(t, short.Deleted)
	require.Len(t, h.LiveIdentifiers(t, first.SourceID), 8, "nothing deleted")
}

// TestHarvestDKANPortal: a DKAN 2 metastore's datasets are added, then unchanged, and a dataset
// it dropped is deleted.
func TestHarvestDKANPortal(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	items := portaltest.CorpusDKANItems(t)
	dkan := portaltest.NewDKAN(t, items)
	src := portal(harvest.SourceDKAN, dkan.Server.URL)
	first := h.Harvest(t, src)
	pipelinetest.MustComplete(t, first)
	require.Equal(t, 10, first.Added)
	second := h.Harvest(t, src)
	pipelinetest.MustComplete(t, second)
	require.Equal(t, 10, second.Unchanged)
	dkan.SetItems(items[1:])
	third := h.Harvest(t, src)
	pipelinetest.MustComplete(t, third)
	require.Equal(t, 1, third.Deleted)
	require.Equal(t, 9, third.Unchanged)
}

// TestPortalListingFailingMidWaySettlesItsRecords (D15): a CKAN listing that fails at once at
// its third page (its count changed), after 200 packages went down the pipeline, ends the job
// only once they settled: its counts are the datasets written, no record is left pending, and
// the next run finds them unchanged (no false updates) and adds the rest.
func TestPortalListingFailingMidWaySettlesItsRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := pipelinetest.New(t)
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, portaltest.CorpusPackages(t)[0], 300))
	ckan.CountFor = func(start int) int {
		if start == 200 {
			return 301 // no retry: the listing fails as soon as the page is read
		}
		return 300
	}
	failed := h.Harvest(t, portal(harvest.SourceCKAN, ckan.URL()))
	require.Equal(t, "error", failed.Status)
	require.Len(t, failed.JobErrors, 1)
	require.Contains(t, failed.JobErrors[0], "start=200")
	require.Contains(t, failed.JobErrors[0], "the total changed mid-listing")
	written := len(h.LiveIdentifiers(t, failed.SourceID))
	require.Equal(t, 200, written, "the two pages listed went through")
	require.Equal(t, written, failed.Added, "the job counts every dataset it wrote")

	conn, err := pgx.Connect(ctx, h.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var pending int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM harvest_record WHERE harvest_job_id = $1 AND status = 'pending'`,
		failed.JobID).Scan(&pending))
	require.Zero(t, pending, "a failed job leaves no pending record")

	ckan.CountFor = nil
	next := h.Harvest(t, portal(harvest.SourceCKAN, ckan.URL()))
	require.Equal(t, "complete", next.Status, "%+v", next)
	require.Zero(t, next.Updated, "no false updates")
	require.Equal(t, written, next.Unchanged)
	require.Equal(t, 300-written, next.Added)
}

// TestPortalCappedRowsHint: a CKAN that serves 100 packages a page where 1000 were asked for is
// harvested whole, 100 at a time, and the job carries one PortalPageSize warning telling the
// operator to set rows=100.
func TestPortalCappedRowsHint(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, portaltest.CorpusPackages(t)[0], 250))
	ckan.MaxRows = 100
	src := portal(harvest.SourceCKAN, ckan.URL())
	src.Options = map[string]string{"rows": "1000"}
	rep := h.Harvest(t, src)
	require.Equal(t, "complete", rep.Status, "%+v", rep)
	require.Equal(t, 250, rep.Added)
	summary, err := h.Store.RecordErrorSummary(context.Background(), rep.JobID)
	require.NoError(t, err)
	require.Equal(t, []*store.RecordErrorCount{{Type: "PortalPageSize", Severity: harvest.SeverityWarning, Count: 1}}, summary)
}
