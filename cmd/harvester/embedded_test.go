package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// runJSON runs the harvester with args and --format json and returns the report.
func runJSON(t *testing.T, args ...string) jobReport {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append(args, "--format", "json"), &out, &errOut)
	var rep jobReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), "exit %d; stderr: %s", code, errOut.String())
	require.Equal(t, rep.Total, rep.Added+rep.Updated+rep.Deleted+rep.Unchanged+rep.Errored, "counts add up")
	return rep
}

// runJSONText decodes a --format json report.
func runJSONText(t *testing.T, text string) jobReport {
	t.Helper()
	var rep jobReport
	require.NoError(t, json.Unmarshal([]byte(text), &rep), text)
	return rep
}

// comparable is a report without what differs between runs (ids, times, locations).
func comparable(r jobReport) jobReport {
	r.JobID, r.SourceID, r.StartedAt, r.FinishedAt, r.URL = "", "", "", "", ""
	for i, e := range r.JobErrors {
		r.JobErrors[i] = e[:min(len(e), 20)]
	}
	return r
}

func TestEmbeddedDefaultMatchesPostgresAndNATS(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	embedded := []string{"--database-url", "", "--nats-url", "", "--data-dir", dataDir}
	external := []string{"--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t), "--data-dir", t.TempDir()}
	srv := corpustest.NewServer(t)

	steps := []struct {
		file, schema string
		extra        []string
	}{
		{"dcatus/agency-gsa-2025-01.data.json", federal, nil},
		{"dcatus/agency-gsa-2025-07.data.json", federal, nil},
		{"dcatus/agency-gsa-2025-07.data.json", federal, nil},
		{"dcatus/agency-gsa-2025-01.data.json", federal, []string{"--job-type", "validate"}},
		{"dcatus/agency-gsa-2025-07.data.json", federal, []string{"--job-type", "force_harvest"}},
		{"dcatus/agency-gsa-2025-07.data.json", federal, []string{"--job-type", "clear"}},
		{"dcatus/agency-gsa-2025-01.data.json", federal, nil},
		{"dcatus/INVALID-datagov-mixed-identifiers.data.json", nonFederal, []string{"--max-delete-share", "1"}},
		{"dcatus/INVALID-not-json.data.json", federal, nil},
	}
	for i, s := range steps {
		srv.Serve(corpustest.Path(t, s.file))
		args := append([]string{"harvest", "--url", srv.URL(), "--schema-type", s.schema}, s.extra...)
		onEmbedded := runJSON(t, append(args, embedded...)...)
		onExternal := runJSON(t, append(args, external...)...)
		require.Equal(t, comparable(onExternal), comparable(onEmbedded), "step %d: %s %v", i, s.file, s.extra)
		require.NotZero(t, onEmbedded.Total+len(onEmbedded.JobErrors), "step %d did something", i)
	}
	require.DirExists(t, dataDir+"/nats", "the in-process nats-server stores in the data directory")
	require.FileExists(t, dataDir+"/harvester.db")
}

// TestReadmeFirstCommand runs the README's first command: the sample catalog that ships in
// examples/, on the embedded default (no Postgres, no NATS server).
func TestReadmeFirstCommand(t *testing.T) {
	t.Parallel()
	args := []string{"harvest", "--file", "../../examples/agency-sample.data.json", "--schema-type", federal,
		"--database-url", "", "--nats-url", "", "--data-dir", t.TempDir()}
	first := runJSON(t, args...)
	require.Equal(t, "complete", first.Status)
	require.Equal(t, [6]int{36, 32, 0, 0, 0, 4}, [6]int{first.Total, first.Added, first.Updated, first.Deleted,
		first.Unchanged, first.Errored}, "32 valid, 3 invalid, 1 duplicate identifier")

	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	require.Equal(t, exitOK, code, errOut.String())
	text := out.String()
	require.Contains(t, text, "total 36: added 0, updated 0, deleted 0, unchanged 32, errored 4")
	require.Contains(t, text, `ValidationError "FAES-2024-021" (carried from job `+first.JobID+`)`)
	require.Contains(t, text, `DuplicateIdentifier "FAES-CGS-0007": dataset #27 repeats identifier "FAES-CGS-0007" of dataset #7`)
}
