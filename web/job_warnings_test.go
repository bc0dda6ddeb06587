package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Issue 26 item 7: the job page lists warnings apart from errors: a record added with a
// warning shows under "Warnings", the errored record's error under "Record errors", each
// section with its own count.
func TestJobPageListsWarningsApart(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		f := seed(t, st)
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: f.src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		for _, p := range []*store.OutcomeSettleParams{
			{Key: "w", Identifier: "w", Outcome: harvest.OutcomeAdded, Errors: []harvest.RecordError{{
				Type: harvest.TypeValidationWarning, Message: "$.issued: later than modified", Severity: harvest.SeverityWarning}}},
			{Key: "e", Identifier: "e", Outcome: harvest.OutcomeErrored, Errors: []harvest.RecordError{{
				Type: harvest.TypeValidationError, Message: "$.title: missing property", Severity: harvest.SeverityError}}},
		} {
			p.JobID = job.ID
			_, _, err := st.OutcomeSettle(ctx, p)
			require.NoError(t, err)
		}
		code, body := newSite(t, st).browser(t).get("/harvest_jobs/" + job.ID)
		require.Equal(t, http.StatusOK, code, body)
		errorsPart, warningsPart, ok := strings.Cut(body, "<h2>Warnings</h2>")
		require.True(t, ok, "a Warnings section: %s", body)
		require.Contains(t, errorsPart, `<p id="record-errors-total">1 record errors.</p>`)
		require.Contains(t, errorsPart, "$.title: missing property")
		require.NotContains(t, errorsPart, "later than modified")
		require.Contains(t, warningsPart, `<p id="record-warnings-total">1 record warnings, 1 different message.</p>`)
		require.Contains(t, warningsPart, `data-type="ValidationWarning" data-severity="warning" data-count="1"`)
		require.Contains(t, warningsPart, "$.issued: later than modified")
		require.NotContains(t, warningsPart, "missing property")

		// The CSV holds warnings too, and its button says so (issue 34 item 17).
		require.Contains(t, body, `id="download-csv" download>Download record errors and warnings (CSV)</a>`)
		code, csv := newSite(t, st).browser(t).get("/harvest_jobs/" + job.ID + "/record_errors.csv")
		require.Equal(t, http.StatusOK, code, csv)
		require.Contains(t, csv, "later than modified")
		require.Contains(t, csv, "missing property")
	})
}
