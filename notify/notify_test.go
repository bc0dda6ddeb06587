package notify

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

var (
	testStart = time.Date(2025, 3, 4, 10, 0, 0, 0, time.FixedZone("EST", -5*3600))
	testEnd   = testStart.Add(90 * time.Second)
)

func cleanJob() Job {
	return Job{
		ID: "6f1c2d3e-0000-4000-8000-000000000001", JobType: harvest.JobHarvest, Status: harvest.JobComplete,
		Counts:    harvest.Counts{Total: 10, Unchanged: 10, Validated: 10},
		StartedAt: testStart, FinishedAt: testEnd,
	}
}

func erroredJob() Job {
	j := cleanJob()
	j.Counts = harvest.Counts{Total: 10, Added: 2, Updated: 1, Deleted: 1, Unchanged: 3, Errored: 3, Validated: 7}
	return j
}

func failedJob() Job {
	j := cleanJob()
	j.Status = harvest.JobError
	j.Counts = harvest.Counts{}
	j.JobError = "ExtractInternalException: source returned HTTP 503\nretry later"
	return j
}

func updatedJob() Job {
	j := cleanJob()
	j.Counts = harvest.Counts{Total: 10, Updated: 4, Unchanged: 6, Validated: 10}
	return j
}

func testSource(freq harvest.NotificationFrequency, emails ...string) Source {
	return Source{
		ID: "src-1", Name: "Example Agency data.json", URL: "https://agency.example.gov/data.json",
		OrganizationName: "Example Agency", NotificationEmails: emails, NotificationFrequency: freq,
	}
}

// countLine is how Compose prints one count.
func countLine(label string, n int) string { return fmt.Sprintf("  %-11s %d\n", label+":", n) }

func TestShouldSend(t *testing.T) {
	t.Parallel()
	jobs := map[string]Job{"clean": cleanJob(), "record errors": erroredJob(), "failed": failedJob(), "only updates": updatedJob()}
	want := map[harvest.NotificationFrequency]map[string]bool{
		harvest.NotifyAlways:          {"clean": true, "record errors": true, "failed": true, "only updates": true},
		harvest.NotifyOnError:         {"clean": false, "record errors": true, "failed": true, "only updates": false},
		harvest.NotifyOnErrorOrUpdate: {"clean": false, "record errors": true, "failed": true, "only updates": true},
		"":                            {"clean": false, "record errors": false, "failed": false, "only updates": false},
		"weekly":                      {"clean": false, "record errors": false, "failed": false, "only updates": false},
	}
	for freq, row := range want {
		for name, job := range jobs {
			require.Equal(t, row[name], ShouldSend(freq, job), "frequency %q, %s job", freq, name)
		}
	}
	// Each of added, updated, deleted alone is an update.
	for _, c := range []harvest.Counts{{Added: 1}, {Updated: 1}, {Deleted: 1}} {
		j := cleanJob()
		j.Counts = c
		require.True(t, ShouldSend(harvest.NotifyOnErrorOrUpdate, j), "%+v", c)
		require.False(t, ShouldSend(harvest.NotifyOnError, j), "%+v", c)
	}
}

func TestComposeCleanJob(t *testing.T) {
	t.Parallel()
	subject, body := Compose(Config{BaseURL: "https://harvest.example.gov/"}, testSource(harvest.NotifyAlways), cleanJob())
	require.Equal(t, "Harvest job complete: Example Agency data.json", subject)
	require.Contains(t, body, "completed successfully")
	for _, want := range []string{
		"Organization:  Example Agency\n",
		"Source:        Example Agency data.json\n",
		"Source URL:    https://agency.example.gov/data.json\n",
		"Job ID:        6f1c2d3e-0000-4000-8000-000000000001\n",
		"Job type:      harvest\n",
		"Status:        complete\n",
		"Started:       2025-03-04T15:00:00Z\n", // converted to UTC
		"Finished:      2025-03-04T15:01:30Z\n",
		"Duration:      1m30s\n",
		"Job details:   https://harvest.example.gov/api/v1/harvest_jobs/6f1c2d3e-0000-4000-8000-000000000001\n",
		countLine("Total", 10), countLine("Added", 0), countLine("Updated", 0), countLine("Deleted", 0),
		countLine("Unchanged", 10), countLine("Errored", 0), countLine("Validated", 10),
		"notification frequency: always",
	} {
		require.Contains(t, body, want)
	}
	require.NotContains(t, body, "Job error")
}

func TestComposeRecordErrors(t *testing.T) {
	t.Parallel()
	subject, body := Compose(Config{}, testSource(harvest.NotifyOnError), erroredJob())
	require.Equal(t, "Harvest job complete: Example Agency data.json (3 errors)", subject)
	require.NotContains(t, strings.ToLower(body), "successfully")
	require.Contains(t, body, "finished with 3 record errors")
	for _, want := range []string{
		countLine("Total", 10), countLine("Added", 2), countLine("Updated", 1), countLine("Deleted", 1),
		countLine("Unchanged", 3), countLine("Errored", 3), countLine("Validated", 7),
	} {
		require.Contains(t, body, want)
	}
	require.NotContains(t, body, "Job details", "no BaseURL, no link")

	one := erroredJob()
	one.Counts.Errored = 1
	subject, _ = Compose(Config{}, testSource(harvest.NotifyOnError), one)
	require.Equal(t, "Harvest job complete: Example Agency data.json (1 error)", subject)
}

func TestComposeFailedJob(t *testing.T) {
	t.Parallel()
	subject, body := Compose(Config{BaseURL: "http://localhost:8080"}, testSource(harvest.NotifyOnError), failedJob())
	require.Equal(t, "Harvest job FAILED: Example Agency data.json", subject)
	require.NotContains(t, strings.ToLower(subject+body), "successfully")
	require.Contains(t, body, "FAILED")
	require.Contains(t, body, "Status:        error\n")
	require.Contains(t, body, "Job error:\n  ExtractInternalException: source returned HTTP 503\n  retry later\n")
	require.Contains(t, body, "http://localhost:8080/api/v1/harvest_jobs/"+failedJob().ID)

	// A failed job with record errors and no recorded message still says so.
	j := failedJob()
	j.JobError = ""
	j.Counts.Errored = 2
	subject, body = Compose(Config{}, testSource(harvest.NotifyOnError), j)
	require.Equal(t, "Harvest job FAILED: Example Agency data.json", subject)
	require.NotContains(t, strings.ToLower(body), "successfully")
	require.Contains(t, body, "2 records also had errors")
	require.Contains(t, body, "(no job error message was recorded)")
}

func TestComposeMissingFields(t *testing.T) {
	t.Parallel()
	j := cleanJob()
	j.StartedAt, j.FinishedAt, j.JobType = time.Time{}, time.Time{}, ""
	subject, body := Compose(Config{}, Source{URL: "https://x.example/data.json"}, j)
	require.Equal(t, "Harvest job complete: https://x.example/data.json", subject, "URL stands in for a missing name")
	require.Contains(t, body, "Started:       (not recorded)\n")
	require.Contains(t, body, "Job type:      harvest\n")
	require.Contains(t, body, "Organization:  (none)\n")
	require.NotContains(t, body, "Duration")

	j.Status = harvest.JobInProgress
	subject, body = Compose(Config{}, testSource(harvest.NotifyAlways), j)
	require.Equal(t, "Harvest job in_progress: Example Agency data.json", subject)
	require.NotContains(t, body, "successfully")
}

func TestComposeSubjectIsOneLine(t *testing.T) {
	t.Parallel()
	src := testSource(harvest.NotifyAlways)
	src.Name = "Evil\r\nBcc: victim@example.com\n\tX-Injected: 1\u2028end"
	src.OrganizationName = "Org\r\nFake-Line: 1"
	subject, body := Compose(Config{}, src, erroredJob())
	require.Equal(t, "Harvest job complete: Evil Bcc: victim@example.com X-Injected: 1 end (3 errors)", subject)
	require.NotContains(t, subject, "\r")
	require.NotContains(t, subject, "\n")
	require.Contains(t, body, "Organization:  Org Fake-Line: 1\n")

	src.Name = strings.Repeat("n", 500)
	subject, _ = Compose(Config{}, src, cleanJob())
	require.Equal(t, "Harvest job complete: "+strings.Repeat("n", maxNameRunes-1)+"…", subject)
}

func TestConfigWithDefaults(t *testing.T) {
	t.Parallel()
	c := Config{Host: " smtp.example.gov ", TLS: " StartTLS "}.WithDefaults()
	require.Equal(t, "smtp.example.gov", c.Host)
	require.Equal(t, TLSStartTLS, c.TLS)
	require.Equal(t, 587, c.Port)
	require.Equal(t, 30*time.Second, c.Timeout)

	require.Equal(t, TLSStartTLS, Config{}.WithDefaults().TLS)
	require.Equal(t, 465, Config{TLS: "tls"}.WithDefaults().Port)
	kept := Config{Port: 2525, TLS: "none", Timeout: time.Second}.WithDefaults()
	require.Equal(t, 2525, kept.Port)
	require.Equal(t, TLSNone, kept.TLS)
	require.Equal(t, time.Second, kept.Timeout)
}

func TestNewMailerValidation(t *testing.T) {
	t.Parallel()
	good := Config{Host: "smtp.example.gov", From: "Harvester <harvester@example.gov>"}
	for name, tc := range map[string]struct {
		mutate func(*Config)
		fields []string
	}{
		"From missing":          {func(c *Config) { c.From = "" }, []string{"From: required"}},
		"From invalid":          {func(c *Config) { c.From = "not an address" }, []string{"From:"}},
		"TLS unknown":           {func(c *Config) { c.TLS = "ssl" }, []string{"TLS:"}},
		"Port out of range":     {func(c *Config) { c.Port = 70000 }, []string{"Port:"}},
		"Port negative":         {func(c *Config) { c.Port = -1 }, []string{"Port:"}},
		"Timeout negative":      {func(c *Config) { c.Timeout = -time.Second }, []string{"Timeout:"}},
		"Host with port":        {func(c *Config) { c.Host = "smtp.example.gov:25" }, []string{"Host:"}},
		"Host with space":       {func(c *Config) { c.Host = "smtp example" }, []string{"Host:"}},
		"Password w/o Username": {func(c *Config) { c.Password = "secret" }, []string{"Username:"}},
		"Username w/o Password": {func(c *Config) { c.Username = "user" }, []string{"Password:"}},
		"BaseURL not http":      {func(c *Config) { c.BaseURL = "ftp://example.gov" }, []string{"BaseURL:"}},
		"BaseURL relative":      {func(c *Config) { c.BaseURL = "/api" }, []string{"BaseURL:"}},
		"several":               {func(c *Config) { c.From, c.TLS = "", "bogus" }, []string{"From:", "TLS:"}},
	} {
		cfg := good
		tc.mutate(&cfg)
		m, err := NewMailer(cfg)
		require.Error(t, err, name)
		require.Nil(t, m, name)
		require.Contains(t, err.Error(), "notify: invalid SMTP config", name)
		for _, f := range tc.fields {
			require.Contains(t, err.Error(), f, name)
		}
	}

	m, err := NewMailer(good)
	require.NoError(t, err)
	require.True(t, m.Enabled())
	_, err = NewMailer(Config{Host: "::1", From: "a@example.gov", TLS: "tls", BaseURL: "https://h.example"})
	require.NoError(t, err, "a bare IPv6 address is a host")
}
