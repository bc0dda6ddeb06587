package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/stages/extract/portaltest"
	"github.com/harvester-dev/harvester/store"
)

// portalDatasetIDs returns the identifiers of a source's live datasets.
func portalDatasetIDs(t *testing.T, st store.Store, sourceID string) []string {
	t.Helper()
	ds, err := st.DatasetList(context.Background(), &store.DatasetListParams{SourceID: sourceID})
	require.NoError(t, err)
	var out []string
	for _, d := range ds {
		out = append(out, d.Identifier)
	}
	return out
}

// TestHarvestCKANPortal: a CKAN portal through every stage on Postgres and NATS: the first run
// adds every package that validates as non-federal DCAT-US (the rest are validation errors
// naming the field they lack), the second is all unchanged, a package the portal dropped is
// deleted, and a listing that ends short of its count fails and deletes nothing.
func TestHarvestCKANPortal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ckan := portaltest.NewCKAN(t, portaltest.CorpusPackages(t))
	harvestCKAN := func() (jobReport, int) { return b.harvest(t, "--source-type", "ckan", "--url", ckan.URL()) }

	first, code := harvestCKAN()
	require.Equal(t, exitOK, code, "%+v", first)
	require.Equal(t, "complete", first.Status)
	require.Equal(t, 13, first.Total)
	require.Equal(t, 9, first.Added, "DataSud's 7, EnviDat's and catalog.data.gov's package")
	require.Equal(t, 4, first.Errored, "4 packages lack a publisher or contact point")
	require.Equal(t, 9, first.Validated)
	src, err := b.st.SourceGet(context.Background(), first.SourceID)
	require.NoError(t, err)
	require.Equal(t, "ckan", string(src.SourceType))
	require.Equal(t, nonFederal, string(src.SchemaType), "a portal's schema type defaults to non-federal")
	d, err := b.st.DatasetGet(context.Background(), &store.DatasetGetParams{SourceID: first.SourceID,
		Identifier: ckan.URL() + "/dataset/cfa98601-185f-4194-bc0f-119fc23a194b"})
	require.NoError(t, err)
	var dcat map[string]any
	require.NoError(t, json.Unmarshal(d.DCAT, &dcat))
	require.Equal(t, "Canispaces - Ville de Gap", dcat["title"])
	require.Equal(t, ckan.URL()+"/dataset/canispaces----ville-de-gap", dcat["landingPage"])
	rec, err := b.st.RecordGet(context.Background(), d.RecordID)
	require.NoError(t, err)
	require.Contains(t, rec.SourceRaw, `"owner_org"`, "source_raw is the package as served")

	second, code := harvestCKAN()
	require.Equal(t, exitOK, code)
	require.Equal(t, 9, second.Unchanged)
	require.Equal(t, 4, second.Errored, "invalid packages stay errored")
	require.Zero(t, second.Added+second.Updated+second.Deleted)

	pkgs := portaltest.CorpusPackages(t)
	ckan.SetPackages(t, pkgs[1:]) // DataSud's first package leaves the portal
	third, code := harvestCKAN()
	require.Equal(t, exitOK, code)
	require.Equal(t, 1, third.Deleted)
	require.Equal(t, 8, third.Unchanged)
	require.Len(t, portalDatasetIDs(t, b.st, first.SourceID), 8)

	ckan.CountFor = func(int) int { return 20 } // the portal says 20, serves 12
	short, code := harvestCKAN()
	require.Equal(t, exitJobError, code)
	require.Equal(t, "error", short.Status)
	require.Len(t, short.JobErrors, 1)
	require.Contains(t, short.JobErrors[0], "ended short of its total: 12 distinct items listed (12 served), the portal reported 20")
	require.Zero(t, short.Deleted)
	require.Len(t, portalDatasetIDs(t, b.st, first.SourceID), 8, "nothing deleted")
}

// TestHarvestDKANPortal: a DKAN 2 metastore's datasets are added, then unchanged, and a dataset
// it dropped is deleted.
func TestHarvestDKANPortal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	items := portaltest.CorpusDKANItems(t)
	dkan := portaltest.NewDKAN(t, items)
	first, code := b.harvest(t, "--source-type", "dkan", "--url", dkan.Server.URL)
	require.Equal(t, exitOK, code, "%+v", first)
	require.Equal(t, 10, first.Added)
	second, code := b.harvest(t, "--source-type", "dkan", "--url", dkan.Server.URL)
	require.Equal(t, exitOK, code)
	require.Equal(t, 10, second.Unchanged)
	dkan.SetItems(items[1:])
	third, code := b.harvest(t, "--source-type", "dkan", "--url", dkan.Server.URL)
	require.Equal(t, exitOK, code)
	require.Equal(t, 1, third.Deleted)
	require.Equal(t, 9, third.Unchanged)
}

// TestHarvestCKAN3000 harvests an emulated CKAN portal of 3,000 packages (30 pages of 100) with
// the built binary in its own process and reads its peak RSS (getrusage of the child,
// ru_maxrss): under 150 MiB. Then page 7 of 30 answers 500 on every try: the job fails
// naming the page's URL and status, and the 3,000 datasets are all kept.
//
// Not parallel: a memory figure of one process is only worth something while the package's
// dozens of parallel harvests are not sharing the machine with it (under that load the stages'
// queues fill — up to MaxAckPending messages each — and the peak measured ~290 MiB).
func TestHarvestCKAN3000(t *testing.T) {
	b := setup(t)
	bin := buildBinary(t)
	template := portaltest.CorpusPackages(t)[0]
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, template, 3000))

	// Its own data directory: the search index of the other tests' harvests is not its memory.
	cmd := exec.Command(bin, "harvest", "--source-type", "ckan", "--url", ckan.URL(), "--database-url", b.dbURL,
		"--nats-url", b.natsURL, "--format", "json", "--data-dir", t.TempDir(), "--opensearch-url", "")
	cmd.Env = append(os.Environ(), "DATABASE_URL=", "NATS_URL=")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), "stderr: %s", errOut.String())
	var rep jobReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, 3000, rep.Added)
	peakKiB := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // Linux: KiB
	t.Logf("peak RSS of `harvester harvest` over 3,000 CKAN packages in 30 pages: %.1f MiB", float64(peakKiB)/1024)
	require.Less(t, peakKiB, int64(150*1024), "peak RSS under 150 MiB")
	require.Len(t, ckan.Requests(), 31, "30 full pages, and the page after them, which must be empty")

	ckan.FaultFor = func(start, _ int) portaltest.Fault {
		if start == 600 { // page 7 of 30
			return portaltest.Fault{Status: 500, Body: "<html><title>Internal Server Error</title></html>"}
		}
		return portaltest.Fault{}
	}
	failed, code := b.harvest(t, "--source-type", "ckan", "--url", ckan.URL())
	require.Equal(t, exitJobError, code)
	require.Equal(t, "error", failed.Status)
	require.Len(t, failed.JobErrors, 1)
	for _, want := range []string{ckan.URL() + "/api/3/action/package_search?", "start=600", "HTTP 500 Internal Server Error",
		"gave up after"} {
		require.Contains(t, failed.JobErrors[0], want)
	}
	require.Zero(t, failed.Deleted)
	require.Len(t, portalDatasetIDs(t, b.st, rep.SourceID), 3000, "nothing deleted")
}

func TestHarvestPortalBadArguments(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--source-type", "ckan", "--file", "portal_test.go"},
		{"--source-type", "ckan", "--url", "https://catalog.example.org", "--schema-type", "iso19115_1"},
		{"--source-type", "ckan", "--url", "https://catalog.example.org", "--waf-time-zone", "UTC"},
	} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"harvest"}, args...), &out, &errOut)
		require.Equal(t, exitUsage, code, "%v: %s", args, errOut.String())
	}
}
