package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// etagServer is a corpustest.Server whose document is at URL + "/data.json" (cancel_test.go's
// agency server): each serve is a new version of the document, with its own ETag.
type etagServer struct {
	*corpustest.Server
	URL string
}

func newETagServer(t *testing.T) etagServer {
	s := corpustest.NewServer(t)
	return etagServer{Server: s, URL: s.Server.URL}
}

// serve publishes a corpus file as the document's next version; the ETag is the server's own.
func (s etagServer) serve(t *testing.T, corpusFile, _ string) {
	s.Serve(corpustest.Path(t, corpusFile))
}

// lastConditional reports whether the last request was a conditional GET, and forgets them.
func (s etagServer) lastConditional(t *testing.T) bool { return s.LastConditional(t) }

// The text report of a job whose conditional GET got a 304 says so (the rule itself is
// TestHarvestConditionalGET's, in stages/extract).
func TestReportSaysNotModified(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.harvestCorpus(t, "dcatus/datagov-cftc.data.json")
	again, code := b.harvestURL(t, federal)
	require.Equal(t, exitOK, code)
	require.True(t, again.NotModified)
	var text bytes.Buffer
	job, err := b.st.JobGet(context.Background(), again.JobID)
	require.NoError(t, err)
	require.NoError(t, printReport(context.Background(), &text, b.st, job, b.srv.URL(), "text"))
	require.Contains(t, text.String(), "not modified: the source answered 304")
}

// parseServiceFlags parses args as the service flags every command that runs stages shares
// (their defaults read from the environment); the flags must parse.
func parseServiceFlags(t *testing.T, args ...string) *serviceFlags {
	t.Helper()
	var f serviceFlags
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	f.register(cmd)
	cmd.SetArgs(args)
	require.NoError(t, cmd.Execute())
	return &f
}

// The fetch flags reach the fetch client; their environment variables set the defaults; 0
// keeps the built-in default; a negative value is a usage error.
func TestFetchFlags(t *testing.T) {
	t.Setenv("HARVESTER_FETCH_MAX_PER_HOST", "3")
	t.Setenv("HARVESTER_FETCH_TIMEOUT", "90s")
	parse := func(args ...string) (*serviceFlags, error) {
		f := parseServiceFlags(t, args...)
		return f, f.checkFetch()
	}
	f, err := parse("--fetch-max-bytes", "1024", "--fetch-attempts", "2", "--fetch-retry-budget", "5s",
		"--fetch-max-redirects", "4")
	require.NoError(t, err)
	c := f.fetchConfig()
	require.Equal(t, 3, c.MaxPerHost)
	require.Equal(t, 90*time.Second, c.Timeout)
	require.Equal(t, int64(1024), c.MaxBytes)
	require.Equal(t, 2, c.Attempts)
	require.Equal(t, 5*time.Second, c.RetryBudget)
	require.Equal(t, 4, c.MaxRedirects)
	require.Equal(t, 10*time.Second, c.MaxBackoff, "a default")
	require.Same(t, c.Client, f.fetchConfig().Client, "one client (and per-host limit) per process")

	_, err = parse("--fetch-max-per-host", "-1")
	require.ErrorContains(t, err, "--fetch-max-per-host: must not be negative")
}
