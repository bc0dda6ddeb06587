package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/notify/smtptest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// apiClient talks to a running `harvester serve`.
type apiClient struct {
	t    *testing.T
	base string
	key  string
}

func (c *apiClient) do(method, path string, body any, key string) (int, []byte) {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(c.t, err)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	require.NoError(c.t, err)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return resp.StatusCode, out
}

// call does a request with the key and decodes a JSON answer of the wanted status into v.
func (c *apiClient) call(method, path string, body any, want int, v any) {
	c.t.Helper()
	status, out := c.do(method, path, body, c.key)
	require.Equal(c.t, want, status, "%s %s: %s", method, path, out)
	if v != nil {
		require.NoError(c.t, json.Unmarshal(out, v), string(out))
	}
}

type apiJob struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	harvest.Counts
	PercentSettled *float64 `json:"percent_settled"`
}

func (c *apiClient) waitJob(id string) apiJob {
	c.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var j apiJob
		c.call("GET", "/api/v1/harvest_jobs/"+id, nil, http.StatusOK, &j)
		if j.Status == "complete" || j.Status == "error" {
			return j
		}
		require.True(c.t, time.Now().Before(deadline), "job %s still %s", id, j.Status)
		time.Sleep(50 * time.Millisecond)
	}
}

// mailServe is a `harvester serve` (API, scheduler and stages in one process) on its own
// database and NATS server that emails job reports through a test SMTP server.
type mailServe struct {
	*apiClient
	smtp    *smtptest.Server
	nc      *nats.Conn // the NATS server's, for the test's own messages
	reports chan string
}

// startMailServe starts it with the API key s3cret and serve's extra args.
func startMailServe(t *testing.T, args ...string) *mailServe {
	smtp := serveEnv(t)
	natsURL := natstest.URL(t)
	// The report event of a job is published after its email went out: waiting for it makes
	// "no email was sent" a fact, not a guess.
	nc, err := nats.Connect(natsURL)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	s := &mailServe{smtp: smtp, nc: nc, reports: make(chan string, 16)}
	_, err = nc.Subscribe(harvest.SubjectReport, func(m *nats.Msg) { s.reports <- m.Header.Get(harvest.MetaJobID) })
	require.NoError(t, err)
	s.apiClient = startServe(t, freeAddr(t), append([]string{"--database-url", dbtest.URL(t), "--nats-url", natsURL,
		"--scheduler-interval", "50ms"}, args...)...)
	return s
}

// awaitReport waits for the report event of the job.
func (s *mailServe) awaitReport(jobID string) {
	s.t.Helper()
	for {
		select {
		case id := <-s.reports:
			if id == jobID {
				return
			}
		case <-time.After(time.Minute):
			s.t.Fatalf("no report event for job %s", jobID)
		}
	}
}

// runJob starts a job of the source through the API, waits for it to end and for its report
// event, and returns it.
func (s *mailServe) runJob(sourceID, jobType string) apiJob {
	s.t.Helper()
	var job apiJob
	s.call("POST", "/api/v1/harvest_sources/"+sourceID+"/jobs", map[string]string{"job_type": jobType}, http.StatusAccepted, &job)
	job = s.waitJob(job.ID)
	s.awaitReport(job.ID)
	return job
}

// TestServe runs `harvester serve` and uses it as a catalog team would: an organization, a
// source, jobs started through the API, the record errors as JSON and CSV, and the job report
// emails.
func TestServe(t *testing.T) {
	agency := corpustest.NewServer(t)
	c := startMailServe(t, "--base-url", "https://harvest.example.gov")

	// Writes need the key.
	status, _ := c.do("POST", "/api/v1/organizations", map[string]string{"name": "VA", "slug": "va"}, "")
	require.Equal(t, http.StatusUnauthorized, status)

	var org struct{ ID string }
	c.call("POST", "/api/v1/organizations", map[string]string{"name": "Department of Veterans Affairs", "slug": "va"},
		http.StatusCreated, &org)
	var src struct{ ID string }
	c.call("POST", "/api/v1/harvest_sources", map[string]any{"name": "VA data.json", "url": agency.URL(),
		"organization_id": org.ID, "schema_type": "dcatus1.1: federal", "frequency": "manual",
		"notification_emails": []string{"data@va.example.gov", "cdo@va.example.gov"}, "notification_frequency": "on_error"},
		http.StatusCreated, &src)

	agency.Serve(corpustest.Path(t, "dcatus/agency-va-2025-07.data.json"))
	job := serveJobWithErrors(c, src.ID)
	checkReportEmails(c, job)

	// A clean job on the same on_error source sends none. (The source moves to another catalog:
	// deleting every VA dataset needs a force_harvest, a plain harvest refuses to delete so much.)
	agency.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	job = c.runJob(src.ID, "force_harvest")
	require.Equal(t, "complete", job.Status)
	require.Zero(t, job.Errored)
	require.Equal(t, 339, job.Added)
	require.Len(t, c.smtp.Messages(), 2, "a clean job on an on_error source sends no email")

	serveTriggerMessage(c, src.ID)

	// The source still has datasets: deleting it is refused until it is cleared.
	c.call("DELETE", "/api/v1/harvest_sources/"+src.ID, nil, http.StatusConflict, nil)
	c.call("POST", "/api/v1/harvest_sources/"+src.ID+"/jobs", map[string]string{"job_type": "clear"}, http.StatusAccepted, &job)
	require.Equal(t, "complete", c.waitJob(job.ID).Status)
	c.call("DELETE", "/api/v1/harvest_sources/"+src.ID, nil, http.StatusNoContent, nil)

	status, body := c.do("GET", "/metrics", nil, "")
	require.Equal(t, http.StatusOK, status)
	require.True(t, strings.Contains(string(body), "harvester_records_settled_total"), "stage metrics are served")
}

// serveJobWithErrors runs a job with record errors (a second one is refused while it runs)
// and checks its counts and its record errors as JSON and CSV.
func serveJobWithErrors(c *mailServe, sourceID string) apiJob {
	t := c.t
	var job apiJob
	c.call("POST", "/api/v1/harvest_sources/"+sourceID+"/jobs", map[string]string{"job_type": "harvest"}, http.StatusAccepted, &job)
	c.call("POST", "/api/v1/harvest_sources/"+sourceID+"/jobs", map[string]string{"job_type": "harvest"}, http.StatusConflict, nil)
	job = c.waitJob(job.ID)
	require.Equal(t, "complete", job.Status)
	require.Equal(t, 1856, job.Total)
	require.Equal(t, job.Total, job.Added+job.Updated+job.Deleted+job.Unchanged+job.Errored)
	require.Positive(t, job.Errored)
	require.NotNil(t, job.PercentSettled)
	require.Equal(t, 100.0, *job.PercentSettled)

	var page struct {
		Items []struct{ Identifier, Type, Message string }
		Total int
	}
	c.call("GET", "/api/v1/harvest_jobs/"+job.ID+"/record_errors?per_page=100", nil, http.StatusOK, &page)
	require.Len(t, page.Items, 100)
	require.Greater(t, page.Total, job.Errored, "invalid records have one row per problem")
	status, body := c.do("GET", "/api/v1/harvest_jobs/"+job.ID+"/record_errors?format=csv", nil, "")
	require.Equal(t, http.StatusOK, status)
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, page.Total+1, "a header and every row")
	return job
}

// checkReportEmails: a job with record errors sends one email per recipient, with the counts.
func checkReportEmails(c *mailServe, job apiJob) {
	t := c.t
	c.awaitReport(job.ID)
	require.Len(t, c.smtp.Messages(), 2)
	to := map[string]bool{}
	for _, m := range c.smtp.Messages() {
		require.Len(t, m.To, 1, "one message per recipient")
		to[m.To[0]] = true
		_, text := m.Parse(t)
		require.Regexp(t, fmt.Sprintf(`Errored:\s+%d\n`, job.Errored), text)
		require.Regexp(t, fmt.Sprintf(`Added:\s+%d\n`, job.Added), text)
		require.Contains(t, text, "Department of Veterans Affairs")
		require.Contains(t, text, "https://harvest.example.gov/api/v1/harvest_jobs/"+job.ID)
	}
	require.Equal(t, map[string]bool{"data@va.example.gov": true, "cdo@va.example.gov": true}, to)
}

// serveTriggerMessage: a trigger message (as the FDK harvester takes them) starts a
// force_harvest of the source, after the one force_harvest it had.
func serveTriggerMessage(c *mailServe, sourceID string) {
	t := c.t
	require.NoError(t, c.nc.Publish(harvest.SubjectTrigger, []byte(`{"dataSourceId":"`+sourceID+`","forceUpdate":true}`)))
	var list struct {
		Items []apiJob
		Total int
	}
	require.Eventually(t, func() bool {
		c.call("GET", "/api/v1/harvest_jobs?source_id="+sourceID+"&job_type=force_harvest", nil, http.StatusOK, &list)
		return list.Total == 2 // the clean job above was one; jobs are listed newest first
	}, 5*time.Minute, 20*time.Millisecond, "the trigger queued a force_harvest job")
	forced := c.waitJob(list.Items[0].ID)
	require.Equal(t, "complete", forced.Status)
	require.Equal(t, 339, forced.Updated, "force_harvest updates every record")
}

// TestAPIConfigProtectReads: HARVESTER_PROTECT_READS=1 turns on the protected reads that the
// OpenAPI document describes; without it reads are open.
func TestAPIConfigProtectReads(t *testing.T) {
	t.Setenv("HARVESTER_API_KEY", "k")
	apiConfig := func() api.Config {
		var f serverFlags
		f.register(&cobra.Command{}, true)
		return f.api
	}
	t.Setenv("HARVESTER_PROTECT_READS", "")
	require.Equal(t, api.Config{APIKey: "k"}, apiConfig())
	t.Setenv("HARVESTER_PROTECT_READS", "1")
	require.Equal(t, api.Config{APIKey: "k", ProtectReads: true}, apiConfig())
}

// startServe runs `harvester serve --addr ADDR ARGS...` in this process until the test ends
// (then it must exit 0) and returns an API client once /readyz answers 200. Readiness is waited
// for, not timed: the bound is a failsafe for a server that never comes up.
func startServe(t *testing.T, addr string, args ...string) *apiClient {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		// No link checks unless the test asks for them (a later --link-checks wins): the corpus's
		// distribution URLs are real hosts, which a test must not request.
		done <- run(ctx, append([]string{"serve", "--addr", addr, "--link-checks=false"}, args...), io.Discard, &stderr)
	}()
	t.Cleanup(func() {
		stop()
		require.Equal(t, exitOK, <-done, stderr.String())
	})
	c := &apiClient{t: t, base: "http://" + addr, key: "s3cret"}
	awaitOK(t, c.base+"/readyz", "serve became ready")
	return c
}

// awaitOK waits until GET url answers 200 (a server coming up); the bound is a failsafe.
func awaitOK(t *testing.T, url, what string) {
	t.Helper()
	require.Eventually(t, func() bool {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	}, 5*time.Minute, 20*time.Millisecond, what)
}
