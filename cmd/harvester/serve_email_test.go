package main

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
)

// TestServeEmailsCarriedErrors: an on_error source whose invalid record did not change is
// emailed again by the re-harvest, which counts the record as errored (not validated again)
// and lists the error rows it carried from the job that found them.
func TestServeEmailsCarriedErrors(t *testing.T) {
	catalog := filepath.Join(t.TempDir(), "data.json")
	require.NoError(t, os.WriteFile(catalog, []byte(`{"dataset":[`+pipelinetest.SampleRecord(t, "valid", "")+
		`,{"identifier":"invalid","title":"No description"}]}`), 0o644))
	agency := corpustest.NewServer(t)
	agency.Serve(catalog)
	c := startMailServe(t)

	var src struct{ ID string }
	c.call("POST", "/api/v1/harvest_sources", map[string]any{"name": "Sample", "url": agency.URL(),
		"schema_type": federal, "frequency": "manual", "notification_emails": []string{"data@example.gov"},
		"notification_frequency": "on_error"}, http.StatusCreated, &src)
	harvestOnce := func() apiJob {
		t.Helper()
		job := c.runJob(src.ID, "harvest") // its report event is published after the email went out
		require.Equal(t, "complete", job.Status)
		return job
	}

	first := harvestOnce()
	require.Equal(t, [2]int{1, 1}, [2]int{first.Added, first.Errored})
	require.Len(t, c.smtp.Messages(), 1)

	second := harvestOnce()
	require.Equal(t, [3]int{0, 1, 1}, [3]int{second.Added, second.Unchanged, second.Errored},
		"the invalid record is still invalid")
	require.Len(t, c.smtp.Messages(), 2, "an on_error source is emailed again")
	_, text := c.smtp.Messages()[1].Parse(t)
	require.Regexp(t, `Errored:\s+1\n`, text)

	var page struct {
		Items []struct {
			Identifier       string  `json:"identifier"`
			Type             string  `json:"type"`
			CarriedFromJobID *string `json:"carried_from_job_id"`
		}
		Total int
	}
	third := harvestOnce() // carries from the second job, which had carried them: the origin stays
	require.Equal(t, [3]int{0, 1, 1}, [3]int{third.Added, third.Unchanged, third.Errored})
	require.Len(t, c.smtp.Messages(), 3)
	for _, job := range []apiJob{second, third} {
		c.call("GET", "/api/v1/harvest_jobs/"+job.ID+"/record_errors", nil, http.StatusOK, &page)
		require.Equal(t, 1, page.Total)
		require.Equal(t, "invalid", page.Items[0].Identifier)
		require.Equal(t, "ValidationError", page.Items[0].Type)
		require.NotNil(t, page.Items[0].CarriedFromJobID)
		require.Equal(t, first.ID, *page.Items[0].CarriedFromJobID, "carried from the job that found it")
	}
}
