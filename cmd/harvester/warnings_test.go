package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
)

// Issue 26 item 7: the DCAT-US 3.0 warnings (dcatus3-warning.json: 2 of its 3 records warn) are
// listed in the report as warnings, and an unchanged rerun carries them: warned stays 2 (it
// went to 0 before, as the rows of valid unchanged records were not carried), and the text
// report lists them under their own heading, naming the job that found them.
func TestWarningsShownAndCarried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.srv.Serve(corpustest.Path(t, "dcatus/dcatus3-warning.json"))
	first, code := b.harvestURL(t, "dcatus3.0")
	require.Equal(t, exitOK, code)
	require.Equal(t, [5]int{3, 0, 0, 0, 0}, outcomes(first))
	require.Equal(t, 2, first.Warned)
	require.Zero(t, first.RecordErrors.Total)
	require.Equal(t, 2, first.Warnings.Total)
	for _, w := range first.Warnings.Rows {
		require.Equal(t, harvest.TypeValidationWarning, w.Type)
		require.Equal(t, string(harvest.SeverityWarning), w.Severity)
		require.Empty(t, w.CarriedFromJobID)
	}

	second, code := b.harvestURL(t, "dcatus3.0")
	require.Equal(t, exitOK, code)
	require.Equal(t, [5]int{0, 0, 0, 3, 0}, outcomes(second))
	require.Equal(t, 2, second.Warned, "an unchanged rerun warns as the job that checked the records did")
	require.Equal(t, 2, second.Warnings.Total)
	for _, w := range second.Warnings.Rows {
		require.Equal(t, first.JobID, w.CarriedFromJobID, w.Message)
	}

	var out, errOut bytes.Buffer
	args := []string{"harvest", "--url", b.srv.URL(), "--schema-type", "dcatus3.0",
		"--database-url", b.dbURL, "--nats-url", b.natsURL}
	require.Equal(t, exitOK, run(context.Background(), args, &out, &errOut), errOut.String())
	text := out.String()
	require.Contains(t, text, "unchanged 3, errored 0 (validated 0, warned 2)")
	require.Contains(t, text, "  2 warning rows for 2 records:\n")
	require.Contains(t, text, `    ValidationWarning "https://example.gov/datasets/warning-one" (carried from job `+
		first.JobID+`): $.issued: issued "2030-01-01" is later than modified "2020-01-01"`)
	require.NotContains(t, text, "error row")
}

// Issue 26 item 7: a job whose document the server reports unchanged (304) carries the warning
// rows of the job whose validators it sent, as it carries its errors: warned stays 2.
func TestWarningsCarriedWhenNotModified(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := newETagServer(t)
	srv.serve(t, "dcatus/dcatus3-warning.json", `"v1"`)
	harvest := func() jobReport {
		rep, code := b.harvest(t, "--url", srv.URL+"/data.json", "--schema-type", "dcatus3.0")
		require.Equal(t, exitOK, code, rep.JobErrors)
		return rep
	}
	first := harvest()
	require.Equal(t, 2, first.Warned)
	again := harvest()
	require.True(t, again.NotModified)
	require.Equal(t, [5]int{0, 0, 0, 3, 0}, outcomes(again))
	require.Equal(t, 2, again.Warned, "the 304 job carries the warnings")
	require.Equal(t, 2, again.Warnings.Total)
	for _, w := range again.Warnings.Rows {
		require.Equal(t, first.JobID, w.CarriedFromJobID, w.Message)
	}
}
