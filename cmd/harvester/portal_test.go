package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/stages/extract/portal/portaltest"
)

// TestHarvestCKAN3000 harvests an emulated CKAN portal of 3,000 packages (30 pages of 100) with
// the built binary in its own process and reads its peak RSS (ru_maxrss of that process alone:
// runMeasured) at GOGC=100: under 150 MiB. Then page 7 of 30 answers 500 on every try: the job fails
// naming the page's URL and status, and the 3,000 datasets are all kept.
//
// Not parallel: the package's dozens of parallel harvests would share the machine with it.
func TestHarvestCKAN3000(t *testing.T) {
	b := setup(t)
	bin := buildBinary(t)
	template := portaltest.CorpusPackages(t)[0]
	ckan := portaltest.NewCKAN(t, portaltest.SyntheticPackages(t, template, 3000))

	// Its own data directory: the search index of the other tests' harvests is not its memory.
	cmd := exec.Command(bin, "harvest", "--source-type", "ckan", "--url", ckan.URL(), "--database-url", b.dbURL,
		"--nats-url", b.natsURL, "--format", "json", "--data-dir", t.TempDir(), "--opensearch-url", "")
	// GOGC=100, Go's default, not the harvester's 300 (gc.go), which lets the heap grow to four
	// times what is live, up to the 128 MiB soft limit: with a live heap near 20 MiB that slack
	// alone took the peak from ~100 to 130-150 MiB, more on a loaded machine. The figure is
	// about what the harvest keeps.
	cmd.Env = append(os.Environ(), "DATABASE_URL=", "NATS_URL=", "GOGC=100")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	peakKiB, err := runMeasured(t, cmd)
	require.NoError(t, err, "stderr: %s", errOut.String())
	var rep jobReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, 3000, rep.Added)
	src, err := b.st.SourceGet(context.Background(), rep.SourceID)
	require.NoError(t, err)
	require.Equal(t, nonFederal, string(src.SchemaType), "a portal's schema type defaults to non-federal")
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
	live, err := b.st.DatasetCount(context.Background(), rep.SourceID)
	require.NoError(t, err)
	require.Equal(t, 3000, live, "nothing deleted")
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
