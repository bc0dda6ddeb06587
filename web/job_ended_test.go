package web

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// TestEndedJobIsNotListing: a job cancelled (or failed) before its listing was complete has no
// expected count; its page says it ended, not that it is still listing.
func TestEndedJobIsNotListing(t *testing.T) {
	t.Parallel()
	st := sqliteStore(t)
	f := seed(t, st)
	s := newSite(t, st)
	job, err := st.JobInsert(t.Context(), &store.JobInsertParams{SourceID: f.src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	_, err = st.JobFail(t.Context(), &store.JobFailParams{JobID: job.ID, Type: harvest.TypeCancelledJob, Message: "cancelled"})
	require.NoError(t, err)
	status, body := s.browser(t).get("/harvest_jobs/" + job.ID)
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, `<span id="job-progress-text" aria-live="polite">ended before its listing was complete</span>`)
	require.NotContains(t, body, "listing…")
}
