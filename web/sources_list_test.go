package web

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// failingSource adds to f's organization a source named name whose one job completed with
// every record errored (and one of them warned).
func failingSource(t *testing.T, st store.Store, f *fixture, name string) *store.Source {
	t.Helper()
	ctx := t.Context()
	src, err := st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: f.org.ID, Name: name,
		URL: "https://example.gov/" + uuid.NewString() + "/data.json", SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	for _, key := range []string{"x", "y"} {
		_, _, err := st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: key, Identifier: key,
			Outcome: harvest.OutcomeErrored, Errors: []harvest.RecordError{
				{Type: harvest.TypeValidationError, Message: "$.title: missing property", Severity: harvest.SeverityError},
				{Type: harvest.TypeValidationWarning, Message: "$.keyword: empty", Severity: harvest.SeverityWarning}}})
		require.NoError(t, err)
	}
	finishJob(t, st, job.ID, 2)
	return src
}

// sourceRow is the sources list's row of the source id in body.
func sourceRow(t *testing.T, body, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<tr data-source-id="` + id + `".*?</tr>`).FindString(body)
	require.NotEmpty(t, m, "no row of source %s", id)
	return m
}

// TestSourceListHealth: a source whose every record failed shows "failing" with its errored
// and warned counts, not a green "complete"; the list searches by name, filters by health and
// organization, and sorts by health, all by query parameters (no script).
func TestSourceListHealth(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st)
		bad := failingSource(t, st, f, "Broken feed")
		b := newSite(t, st).browser(t)
		code, body := b.get("/harvest_sources?organization_id=" + f.org.ID)
		require.Equal(t, http.StatusOK, code)
		row := sourceRow(t, body, bad.ID)
		require.Contains(t, row, `class="health health-failing">failing<`)
		require.NotContains(t, row, "status-complete", "no green complete for a source whose every record failed")
		require.Contains(t, row, `<td class="num errored-count">2</td>`)
		require.Contains(t, row, `<td class="num warned-count">2</td>`)
		require.Contains(t, row, `<td class="last-success">never</td>`)
		require.Contains(t, sourceRow(t, body, f.src.ID), `class="health health-ok">ok<`, "job2 had no error")
		require.Contains(t, body, `id="health-rules"`, "the page says what the states mean")
		require.Contains(t, body, `href="/harvest_sources?organization_id=`+f.org.ID+`&amp;sort=health" id="sort-health"`,
			"the column heads sort, keeping the filters")

		_, body = b.get("/harvest_sources?q=BROKEN")
		require.Contains(t, body, `data-source-id="`+bad.ID+`"`)
		require.NotContains(t, body, `data-source-id="`+f.src.ID+`"`)
		_, body = b.get("/harvest_sources?health=ok&organization_id=" + f.org.ID)
		require.Contains(t, body, `data-source-id="`+f.src.ID+`"`)
		require.NotContains(t, body, `data-source-id="`+bad.ID+`"`)
		_, body = b.get("/harvest_sources?sort=health&organization_id=" + f.org.ID)
		require.Less(t, strings.Index(body, bad.ID), strings.Index(body, f.src.ID), "failing before ok")
		_, body = b.get("/harvest_sources?organization_id=" + uuid.NewString())
		require.Contains(t, body, "No harvest sources match.")
		code, _ = b.get("/harvest_sources?health=green")
		require.Equal(t, http.StatusBadRequest, code)
		code, _ = b.get("/harvest_sources?sort=size")
		require.Equal(t, http.StatusBadRequest, code)
	})
}
