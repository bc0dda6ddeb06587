package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/notify/smtptest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// TestServeEmailsCarriedErrors: an on_error source whose invalid record did not change is
// emailed again by the re-harvest, which counts the record as errored (not validated again)
// and lists the error rows it carried from the job that found them.
func TestServeEmailsCarriedErrors(t *testing.T) {
	smtp := smtptest.New(t, smtptest.Options{})
	t.Setenv("HARVESTER_API_KEY", "s3cret")
	t.Setenv("HARVESTER_SMTP_HOST", smtp.Host)
	t.Setenv("HARVESTER_SMTP_PORT", fmt.Sprint(smtp.Port))
	t.Setenv("HARVESTER_SMTP_FROM", "Harvester <harvester@example.gov>")
	t.Setenv("HARVESTER_SMTP_TLS", "none")
	catalog := filepath.Join(t.TempDir(), "data.json")
	require.NoError(t, os.WriteFile(catalog, []byte(`{"dataset":[`+pipelinetest.SampleRecord(t, "valid", "")+
		`,{"identifier":"invalid","title":"No description"}]}`), 0o644))
	agency := corpustest.NewServer(t)
	agency.Serve(catalog)
	addr, natsURL := freeAddr(t), natstest.URL(t)
	nc, err := nats.Connect(natsURL)
	require.NoError(t, err)
	defer nc.Close()
	reports := make(chan string, 16)
	_, err = nc.Subscribe(harvest.SubjectReport, func(m *nats.Msg) { reports <- m.Header.Get(harvest.MetaJobID) })
	require.NoError(t, err)

	c := startServe(t, addr, "--database-url", dbtest.URL(t), "--nats-url", natsURL, "--scheduler-interval", "50ms")

	var src struct{ ID string }
	c.call("POST", "/api/v1/harvest_sources", map[string]any{"name": "Sample", "url": agency.URL(),
		"schema_type": federal, "frequency": "manual", "notification_emails": []string{"data@example.gov"},
		"notification_frequency": "on_error"}, http.StatusCreated, &src)
	harvestOnce := func() apiJob {
		t.Helper()
		var job apiJob
		c.call("POST", "/api/v1/harvest_sources/"+src.ID+"/jobs", map[string]string{"job_type": "harvest"},
			http.StatusAccepted, &job)
		job = c.waitJob(job.ID)
		require.Equal(t, "complete", job.Status)
		for id := range reports { // the report event is published after the email went out
			if id == job.ID {
				break
			}
		}
		return job
	}

	first := harvestOnce()
	require.Equal(t, [2]int{1, 1}, [2]int{first.Added, first.Errored})
	require.Len(t, smtp.Messages(), 1)

	second := harvestOnce()
	require.Equal(t, [3]int{0, 1, 1}, [3]int{second.Added, second.Unchanged, second.Errored},
		"the invalid record is still invalid")
	require.Len(t, smtp.Messages(), 2, "an on_error source is emailed again")
	_, text := smtp.Messages()[1].Parse(t)
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
	require.Len(t, smtp.Messages(), 3)
	for _, job := range []apiJob{second, third} {
		c.call("GET", "/api/v1/harvest_jobs/"+job.ID+"/record_errors", nil, http.StatusOK, &page)
		require.Equal(t, 1, page.Total)
		require.Equal(t, "invalid", page.Items[0].Identifier)
		require.Equal(t, "ValidationError", page.Items[0].Type)
		require.NotNil(t, page.Items[0].CarriedFromJobID)
		require.Equal(t, first.ID, *page.Items[0].CarriedFromJobID, "carried from the job that found it")
	}
}
