package web

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// TestDashboardTimeline: the dashboard draws the last 24 h of jobs, one row per source and one
// bar per job linking to it, coloured by how the job ended (a job whose every record errored is
// failed, not complete), and filters them by organization.
func TestDashboardTimeline(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st)
		bad := failingSource(t, st, f, "Broken feed")
		other, err := st.OrganizationInsert(t.Context(), &store.OrganizationInsertParams{Name: "Other " + uuid.NewString()[:6],
			Slug: "other-" + uuid.NewString()[:8]})
		require.NoError(t, err)
		b := newSite(t, st).browser(t)

		code, body := b.get("/dashboard?organization_id=" + f.org.ID)
		require.Equal(t, http.StatusOK, code)
		svg := regexp.MustCompile(`(?s)<svg class="timeline".*?</svg>`).FindString(body)
		require.NotEmpty(t, svg, "a timeline")
		require.Contains(t, svg, `data-source-id="`+f.src.ID+`"`)
		require.Contains(t, svg, `data-source-id="`+bad.ID+`"`)
		bar := func(jobID string) string {
			m := regexp.MustCompile(`<a href="/harvest_jobs/` + jobID + `"[^>]*>.*?</a>`).FindString(svg)
			require.NotEmpty(t, m, "no bar of job %s", jobID)
			return m
		}
		require.Contains(t, bar(f.job1.ID), `class="bar-errors"`, "1 added, 1 errored")
		require.Contains(t, bar(f.job2.ID), `class="bar-complete"`)
		jobs, _, err := st.JobList(t.Context(), &store.JobListParams{SourceID: bad.ID})
		require.NoError(t, err)
		require.Contains(t, bar(jobs[0].ID), `class="bar-error"`, "every record errored: failed")
		require.Contains(t, bar(jobs[0].ID), "every record errored", "the label says why")
		_, page := b.get("/harvest_jobs/" + jobs[0].ID)
		require.Contains(t, page, `<span id="job-status" data-status="complete" class="health health-failing">failed: every record errored</span>`,
			"the job page's one badge says so")
		require.Equal(t, 1, strings.Count(page, `class="health `), "one badge, not the status beside the outcome")

		_, body = b.get("/dashboard?organization_id=" + other.ID)
		require.NotContains(t, body, `<svg class="timeline"`)
		require.Contains(t, body, `id="timeline-none"`)
		require.NotContains(t, body, f.job1.ID, "the recent jobs are filtered too")
	})
}
