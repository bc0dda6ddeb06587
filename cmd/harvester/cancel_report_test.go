package main

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/notify/smtptest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

// TestCancelReportedFromAPIAndCLI: a job cancelled through the API and one cancelled with
// 'harvester job cancel' are reported alike by the aggregator of a running serve: the harvest
// report event (harvest.v1.report), the email to the source's recipients and
// harvester_jobs_finished_total{status="error"}.
func TestCancelReportedFromAPIAndCLI(t *testing.T) {
	smtp := serveEnv(t)
	ctx := context.Background()
	dbURL, natsURL := dbtest.URL(t), natstest.URL(t)
	reports := reportJobIDs(t, natsURL)
	c := startServe(t, freeAddr(t), "--database-url", dbURL, "--nats-url", natsURL)
	st, err := postgres.Open(ctx, dbURL)
	require.NoError(t, err)
	defer st.Close()

	var src struct{ ID string }
	c.call("POST", "/api/v1/harvest_sources", map[string]any{"name": "Cancelled", "url": "https://agency.example.gov/data.json",
		"schema_type": federal, "frequency": "manual", "notification_emails": []string{"data@example.gov"},
		"notification_frequency": "on_error"}, http.StatusCreated, &src)
	finishedInError := func() int {
		_, out := c.do("GET", "/metrics", nil, c.key)
		m := regexp.MustCompile(`(?m)^harvester_jobs_finished_total\{status="error"\} (\d+)$`).FindSubmatch(out)
		if m == nil {
			return 0
		}
		n, err := strconv.Atoi(string(m[1]))
		require.NoError(t, err)
		return n
	}
	// cancelled runs cancel on a job in progress whose process died (no message of it is on
	// the bus), and checks that it was reported: event, email, metric.
	cancelled := func(t *testing.T, cancel func(jobID string)) {
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		mails, finished := len(smtp.Messages()), finishedInError()
		cancel(job.ID)
		timeout := time.After(time.Minute) // a safety net: the report comes in well under a second
		for id := ""; id != job.ID; {
			select {
			case id = <-reports:
			case <-timeout:
				t.Fatalf("no harvest report event for cancelled job %s", job.ID)
			}
		}
		require.Eventually(t, func() bool { return len(smtp.Messages()) == mails+1 }, time.Minute, 20*time.Millisecond,
			"the report event is published after the email went out")
		_, text := smtp.Messages()[mails].Parse(t)
		require.Contains(t, text, job.ID)
		require.Equal(t, finished+1, finishedInError(), `harvester_jobs_finished_total{status="error"}`)
	}

	t.Run("api", func(t *testing.T) {
		cancelled(t, func(jobID string) {
			c.call("POST", "/api/v1/harvest_jobs/"+jobID+"/cancel", nil, http.StatusOK, nil)
		})
	})
	t.Run("cli", func(t *testing.T) {
		cancelled(t, func(jobID string) {
			code, stdout, stderr := runCmd("job", "cancel", jobID, "--database-url", dbURL, "--nats-url", natsURL)
			require.Equal(t, exitOK, code, stderr)
			require.Contains(t, stdout, "CancelledJob")
			require.Contains(t, stdout, "Reported: the job aggregator published the harvest report event")
		})
	})
}

// serveEnv sets the environment of a serve under test: its API key (s3cret) and its mail to an
// SMTP test server, which it returns.
func serveEnv(t *testing.T) *smtptest.Server {
	t.Helper()
	smtp := smtptest.New(t, smtptest.Options{})
	t.Setenv("HARVESTER_API_KEY", "s3cret")
	t.Setenv("HARVESTER_SMTP_HOST", smtp.Host)
	t.Setenv("HARVESTER_SMTP_PORT", fmt.Sprint(smtp.Port))
	t.Setenv("HARVESTER_SMTP_FROM", "Harvester <harvester@example.gov>")
	t.Setenv("HARVESTER_SMTP_TLS", "none")
	return smtp
}

// reportJobIDs delivers the job id of every harvest report event (harvest.v1.report) published
// on the NATS server at natsURL from now on.
func reportJobIDs(t *testing.T, natsURL string) <-chan string {
	t.Helper()
	nc, err := nats.Connect(natsURL)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	reports := make(chan string, 16)
	_, err = nc.Subscribe(harvest.SubjectReport, func(m *nats.Msg) { reports <- m.Header.Get(harvest.MetaJobID) })
	require.NoError(t, err)
	return reports
}
