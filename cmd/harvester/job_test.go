package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// runCmd runs the harvester with args and returns its exit status, stdout and stderr.
func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// oneErrorObject decodes stdout, which must hold exactly one JSON object: an error report.
func oneErrorObject(t *testing.T, stdout string) errorReport {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var rep errorReport
	require.NoError(t, dec.Decode(&rep), "stdout: %q", stdout)
	var more json.RawMessage
	require.ErrorIs(t, dec.Decode(&more), io.EOF, "exactly one JSON object on stdout: %q", stdout)
	require.Equal(t, "error", rep.Status)
	require.NotEmpty(t, rep.Error)
	return rep
}

func TestHarvestRejectsBadArgumentsBeforeWriting(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	dir := t.TempDir()
	catalog := filepath.Join(dir, "data.json")
	require.NoError(t, os.WriteFile(catalog, []byte(`{"dataset":[]}`), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string // in the error
	}{
		{"a local path as --url", []string{"--url", "/etc/passwd"}, "for a local file, use --file"},
		{"an ftp URL", []string{"--url", "ftp://ftp.example.gov/data.json"}, "not an absolute http(s) URL"},
		{"not a URL", []string{"--url", "not a url"}, "not an absolute http(s) URL"},
		{"a relative URL", []string{"--url", "data.json"}, "not an absolute http(s) URL"},
		{"a URL without a host", []string{"--url", "https:///data.json"}, "has no host"},
		{"an opaque URL", []string{"--url", "https:agency.example.gov/data.json"}, "has no host"},
		{"an unparsable URL", []string{"--url", "https://agency.example.gov/%zz"}, "is not a URL"},
		{"a missing file", []string{"--file", filepath.Join(dir, "missing.json")}, "no such file"},
		{"a directory as --file", []string{"--file", dir}, "is a directory, not a file"},
		{"a zero --timeout", []string{"--file", catalog, "--timeout", "0s"}, "--timeout: 0s is not a positive duration"},
		{"a negative --timeout", []string{"--url", b.srv.URL(), "--timeout", "-1m"}, "--timeout: -1m0s is not a positive"},
	} {
		args := append([]string{"harvest", "--schema-type", federal}, tc.args...)
		args = append(args, "--database-url", b.dbURL, "--nats-url", b.natsURL, "--data-dir", t.TempDir(),
			"--format", "json")
		code, stdout, stderr := runCmd(args...)
		require.Equal(t, exitUsage, code, "%s: %s", tc.name, stderr)
		require.Contains(t, stderr, tc.want, tc.name)
		require.Contains(t, oneErrorObject(t, stdout).Error, tc.want, tc.name)

		sources, total, err := b.st.SourceList(ctx, &store.SourceListParams{})
		require.NoError(t, err)
		require.Zero(t, total, "%s: no harvest_source row: %+v", tc.name, sources)
		_, total, err = b.st.JobList(ctx, &store.JobListParams{})
		require.NoError(t, err)
		require.Zero(t, total, "%s: no harvest_job row", tc.name)
	}

	// The same checks let good arguments through.
	_, code := b.harvest(t, "--file", catalog, "--schema-type", federal, "--timeout", "1m")
	require.Equal(t, exitOK, code)
	b.srv.Serve(catalog)
	_, code = b.harvest(t, "--url", strings.Replace(b.srv.URL(), "http://", "HTTP://", 1), "--schema-type", federal)
	require.Equal(t, exitOK, code, "an upper-case scheme is a URL too")
}

func TestHarvestJobInProgressAndJobCancel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.srv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))

	// A job whose process died: in_progress, and nothing works on it.
	src, err := b.st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: b.srv.URL(), URL: b.srv.URL(),
		SourceType: harvest.SourceDocument, SchemaType: federal})
	require.NoError(t, err)
	stale, err := b.st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	require.Equal(t, harvest.JobInProgress, stale.Status)

	harvestArgs := []string{"harvest", "--url", b.srv.URL(), "--schema-type", federal,
		"--database-url", b.dbURL, "--nats-url", b.natsURL, "--format", "json"}
	code, stdout, stderr := runCmd(harvestArgs...)
	require.Equal(t, exitJobError, code, stderr)
	rep := oneErrorObject(t, stdout)
	require.Equal(t, stale.ID, rep.JobID, "job_id names the job in the way")
	for _, want := range []string{"already has a job in progress", stale.ID, "in_progress",
		"started " + stale.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), "harvester job cancel " + stale.ID} {
		require.Contains(t, rep.Error, want)
	}
	require.True(t, strings.HasPrefix(stderr, "harvester: "), "the stderr line stays: %s", stderr)
	require.Contains(t, stderr, "harvester job cancel "+stale.ID)

	// The text report says the same.
	code, stdout, stderr = runCmd(harvestArgs[:len(harvestArgs)-2]...)
	require.Equal(t, exitJobError, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "harvester job cancel "+stale.ID)

	cancelArgs := []string{"--database-url", b.dbURL, "--nats-url", b.natsURL} // the job's deployment, not the environment's NATS_URL
	code, stdout, stderr = runCmd(append([]string{"job", "cancel", stale.ID}, cancelArgs...)...)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, stale.ID)
	require.Contains(t, stdout, ": error")
	require.Contains(t, stdout, "job error: CancelledJob: cancelled with 'harvester job cancel'")
	job, err := b.st.JobGet(ctx, stale.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.JobError, job.Status)
	jobErrs, err := b.st.JobErrorList(ctx, stale.ID)
	require.NoError(t, err)
	require.Len(t, jobErrs, 1)
	require.Equal(t, "CancelledJob", jobErrs[0].Type)

	next, code := b.harvestURL(t, federal)
	require.Equal(t, exitOK, code, "the source runs again")
	require.Equal(t, "complete", next.Status)
	require.Equal(t, 339, next.Added)

	// Nothing to cancel: exit 1 with a clear message, and nothing changes.
	code, _, stderr = runCmd(append([]string{"job", "cancel", next.JobID}, cancelArgs...)...)
	require.Equal(t, exitJobError, code)
	require.Contains(t, stderr, fmt.Sprintf("job %s already ended in complete", next.JobID))
	for _, id := range []string{uuid.NewString(), "not-a-job-id"} {
		code, stdout, stderr = runCmd(append([]string{"job", "cancel", id}, cancelArgs...)...)
		require.Equal(t, exitJobError, code, id)
		require.Empty(t, stdout)
		require.Contains(t, stderr, fmt.Sprintf("there is no job %q in the Postgres database", id))
	}
	code, _, _ = runCmd(append([]string{"job", "cancel"}, cancelArgs...)...)
	require.Equal(t, exitUsage, code, "cancel wants a job id")
	code, _, _ = runCmd("job", "nope")
	require.Equal(t, exitUsage, code)
}

func TestHarvestJSONErrorWithoutReport(t *testing.T) {
	t.Parallel()
	// The service is unreachable: no job, no job_id.
	code, stdout, stderr := runCmd("harvest", "--url", "https://agency.example.gov/data.json", "--schema-type", federal,
		"--database-url", "postgres://nobody@127.0.0.1:1/harvester?connect_timeout=5", "--nats-url", "nats://127.0.0.1:1",
		"--format", "json")
	require.Equal(t, exitJobError, code, stderr)
	rep := oneErrorObject(t, stdout)
	require.Empty(t, rep.JobID)
	require.Contains(t, stderr, "harvester: "+rep.Error)

	// The job started but the command gave up waiting: its id, and the job was ended.
	b := setup(t)
	b.srv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	code, stdout, stderr = runCmd("harvest", "--url", b.srv.URL(), "--schema-type", federal,
		"--database-url", b.dbURL, "--nats-url", b.natsURL, "--format", "json", "--timeout", "1ns")
	require.Equal(t, exitJobError, code, stderr)
	rep = oneErrorObject(t, stdout)
	require.NotEmpty(t, rep.JobID)
	require.Contains(t, rep.Error, "--timeout 1ns")
	job, err := b.st.JobGet(context.Background(), rep.JobID)
	require.NoError(t, err)
	require.True(t, job.Status.Finished())
}

// errorListStore serves printReport's reads, and checks that it fetches only what it prints.
type errorListStore struct {
	store.Store
	t    *testing.T
	rows int
}

func (s *errorListStore) JobErrorList(context.Context, string) ([]*store.JobError, error) {
	return nil, nil
}

func (s *errorListStore) JobFetchGet(context.Context, string) (*store.JobFetch, error) {
	return nil, store.ErrNotFound
}

func (s *errorListStore) RecordErrorList(_ context.Context, p *store.RecordErrorListParams) ([]*store.RecordError, int, error) {
	require.Equal(s.t, recordErrorsShown, p.Limit, "fetch only the rows printed")
	require.Zero(s.t, p.Offset)
	if p.Severity == harvest.SeverityWarning {
		return nil, 0, nil
	}
	var out []*store.RecordError
	for i := range min(s.rows, p.Limit) {
		out = append(out, &store.RecordError{JobID: p.JobID, Identifier: fmt.Sprintf("id-%02d", i),
			Type: "ValidationError", Message: "bad"})
	}
	return out, s.rows, nil
}

func TestPrintReportCountsErrorRowsAndRecords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rows, records int
		want          string
	}{
		{25, 12, "  25 error rows for 12 records (first 10 shown):\n"},
		{3, 2, "  3 error rows for 2 records:\n"},
		{1, 1, "  1 error row for 1 record:\n"},
	} {
		job := &store.HarvestJob{ID: "j", Status: harvest.JobComplete, JobType: harvest.JobHarvest}
		job.Total, job.Errored = tc.records, tc.records
		var out bytes.Buffer
		require.NoError(t, printReport(context.Background(), &out, &errorListStore{t: t, rows: tc.rows}, job, "u", "text"))
		require.Contains(t, out.String(), tc.want)
		require.NotContains(t, out.String(), "record errors")
		require.Equal(t, min(tc.rows, recordErrorsShown), strings.Count(out.String(), "    ValidationError "))
	}
}
