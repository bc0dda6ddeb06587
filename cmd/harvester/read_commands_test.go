package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// readList is the --format json of source list, job list and duplicates, as far as the tests
// read it.
type readList struct {
	Items []struct {
		ID         string `json:"id"`
		SourceID   string `json:"source_id"`
		Name       string `json:"name"`
		URL        string `json:"url"`
		SourceType string `json:"source_type"`
		Status     string `json:"status"`
		harvest.Counts
		DateFinished *string `json:"date_finished"`
		Match        string  `json:"match"`
		Kept         struct {
			SourceID string `json:"source_id"`
		} `json:"kept"`
		Held heldSide `json:"held"` // a pair's held side, or a job's held count (runList moves it to Counts)
	} `json:"items"`
	Total int `json:"total"`
}

// heldSide is a duplicate pair's held side. A job's item has "held" too, a count (its source's
// held datasets, harvest.Counts.Held), kept in count.
type heldSide struct {
	SourceID string `json:"source_id"`
	count    int
}

// UnmarshalJSON reads an object, or a number (a job's held count) into count.
func (h *heldSide) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return json.Unmarshal(b, &h.count)
	}
	type plain struct {
		SourceID string `json:"source_id"`
	}
	var p plain
	err := json.Unmarshal(b, &p)
	h.SourceID = p.SourceID
	return err
}

func runList(t *testing.T, args ...string) readList {
	t.Helper()
	code, stdout, stderr := runCmd(append(args, "--format", "json")...)
	require.Equal(t, exitOK, code, stderr)
	var l readList
	require.NoError(t, json.Unmarshal([]byte(stdout), &l), stdout)
	for i := range l.Items { // the outer "held" hides Counts.Held: a job's count is in Held.count
		l.Items[i].Counts.Held = l.Items[i].Held.count
	}
	return l
}

// source list, job list, job show and duplicates read what a real harvest wrote, on the
// embedded SQLite store and on Postgres: the counts they print are the harvest's.
func TestReadCommands(t *testing.T) {
	t.Parallel()
	for _, backend := range []struct {
		name  string
		dbURL func(*testing.T) string
	}{
		{"sqlite", func(*testing.T) string { return "" }},
		{"postgres", func(t *testing.T) string { return dbtest.URL(t) }},
	} {
		t.Run(backend.name, func(t *testing.T) {
			t.Parallel()
			testReadCommands(t, []string{"--database-url", backend.dbURL(t), "--data-dir", t.TempDir()})
		})
	}
}

func testReadCommands(t *testing.T, storeArgs []string) {
	sample, err := filepath.Abs("../../examples/agency-sample.data.json")
	require.NoError(t, err)
	harvestFile := func(path string) jobReport {
		rep := runJSON(t, append([]string{"harvest", "--file", path, "--schema-type", federal, "--nats-url", ""},
			storeArgs...)...)
		require.Equal(t, "complete", rep.Status)
		return rep
	}
	read := func(args ...string) []string { return append(args, storeArgs...) }

	code, stdout, stderr := runCmd(read("job", "list")...)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "no harvest jobs\n", stdout)

	first := harvestFile(sample)
	require.Equal(t, 32, first.Added)
	require.Equal(t, 4, first.Errored)

	// source list: the one source, with the API's fields, and its last job in the table.
	sources := runList(t, read("source", "list")...)
	require.Equal(t, 1, sources.Total)
	require.Len(t, sources.Items, 1)
	src := sources.Items[0]
	require.Equal(t, first.SourceID, src.ID)
	require.Equal(t, "document", src.SourceType)
	require.NotEmpty(t, src.Name)
	code, stdout, stderr = runCmd(read("source", "list")...)
	require.Equal(t, exitOK, code, stderr)
	require.Regexp(t, `(?m)^NAME +TYPE +URL +LAST JOB +STARTED$`, stdout)
	require.Regexp(t, `(?m)^`+regexp.QuoteMeta(src.Name)+` +document +`+regexp.QuoteMeta(src.URL)+` +complete +\d{4}-`, stdout)

	// job list and job show: the harvest's counts.
	jobs := runList(t, read("job", "list")...)
	require.Equal(t, 1, jobs.Total)
	require.Equal(t, first.JobID, jobs.Items[0].ID)
	require.Equal(t, first.SourceID, jobs.Items[0].SourceID)
	require.Equal(t, "complete", jobs.Items[0].Status)
	require.Equal(t, first.Counts, jobs.Items[0].Counts)
	require.NotNil(t, jobs.Items[0].DateFinished)
	code, stdout, stderr = runCmd(read("job", "list")...)
	require.Equal(t, exitOK, code, stderr)
	require.Regexp(t, `(?m)^`+first.JobID+` +`+regexp.QuoteMeta(src.Name)+` +harvest +complete +32 +0 +0 +0 +4 +\d{4}-\S+ +\d{4}-`, stdout)

	var show struct {
		ID         string `json:"id"`
		SourceName string `json:"source_name"`
		harvest.Counts
		JobErrors    []string   `json:"job_errors"`
		RecordErrors reportRows `json:"record_errors"`
	}
	code, stdout, stderr = runCmd(read("job", "show", first.JobID, "--format", "json")...)
	require.Equal(t, exitOK, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(stdout), &show), stdout)
	require.Equal(t, first.JobID, show.ID)
	require.Equal(t, src.Name, show.SourceName)
	require.Equal(t, first.Counts, show.Counts)
	require.Equal(t, []string{}, show.JobErrors)
	require.Equal(t, first.RecordErrors.Total, show.RecordErrors.Total)
	require.NotZero(t, show.RecordErrors.Total)
	require.Equal(t, first.RecordErrors.Rows, show.RecordErrors.Rows)
	code, stdout, stderr = runCmd(read("job", "show", first.JobID)...)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "Harvest job "+first.JobID+" (harvest) of "+src.URL+": complete")
	require.Contains(t, stdout, "total 36: added 32, updated 0, deleted 0, unchanged 0, errored 4")
	require.Contains(t, stdout, `DuplicateIdentifier "FAES-CGS-0007"`)

	// An unknown id and a malformed one: one sentence, exit 1.
	for _, id := range []string{"0fbc9aa8-5d1e-4c3b-9f1a-2b7c8d9e0f11", "not-a-job"} {
		code, stdout, stderr = runCmd(read("job", "show", id)...)
		require.Equal(t, exitJobError, code, stderr)
		require.Empty(t, stdout)
		require.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
		require.Regexp(t, `^harvester: job show: (there is no job 0fbc9aa8-5d1e-4c3b-9f1a-2b7c8d9e0f11 in the|"not-a-job" is not a job id)`, stderr)
	}

	// A second source with the same datasets: job list --source keeps each source's jobs, and
	// duplicates lists the pairs.
	copyPath := filepath.Join(t.TempDir(), "mirror.data.json")
	data, err := os.ReadFile(sample)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(copyPath, data, 0o644))
	second := harvestFile(copyPath)
	require.NotEqual(t, first.SourceID, second.SourceID)
	jobs = runList(t, read("job", "list")...)
	require.Equal(t, 2, jobs.Total)
	require.Equal(t, []string{second.JobID, first.JobID}, []string{jobs.Items[0].ID, jobs.Items[1].ID}, "newest first")
	require.Equal(t, second.Counts, jobs.Items[0].Counts)
	for _, ref := range []string{first.SourceID, src.Name, src.URL} {
		jobs = runList(t, read("job", "list", "--source", ref)...)
		require.Equal(t, 1, jobs.Total, ref)
		require.Equal(t, first.JobID, jobs.Items[0].ID, ref)
	}
	code, _, stderr = runCmd(read("job", "list", "--source", "no such source")...)
	require.Equal(t, exitJobError, code)
	require.Contains(t, stderr, `there is no source with id, name or URL "no such source"`)

	dups := runList(t, read("duplicates")...)
	require.NotZero(t, dups.Total)
	for _, d := range dups.Items {
		pair := []string{d.Kept.SourceID, d.Held.SourceID}
		slices.Sort(pair)
		want := []string{first.SourceID, second.SourceID}
		slices.Sort(want)
		require.Equal(t, want, pair)
	}
	require.Equal(t, dups.Total, runList(t, read("duplicates", "--source", second.SourceID)...).Total)
	third := harvestFile(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	require.Zero(t, runList(t, read("duplicates", "--source", third.SourceID)...).Total, "a source with no pair")
	require.Equal(t, dups.Total, runList(t, read("duplicates")...).Total)
	code, stdout, stderr = runCmd(read("duplicates")...)
	require.Equal(t, exitOK, code, stderr)
	require.Regexp(t, `(?m)^identifier +\S+ +`, stdout)
}

// Each read command's help lists its own flags and none of the services it does not use.
func TestReadCommandsHelpListsOwnFlags(t *testing.T) {
	t.Parallel()
	flag := regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z-]+)`)
	store := []string{"data-dir", "database-url", "format", "help"}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"source", "list"}, store},
		{[]string{"job", "list"}, append([]string{"limit", "source"}, store...)},
		{[]string{"job", "show"}, store},
		{[]string{"duplicates"}, append([]string{"limit", "source"}, store...)},
		{[]string{"version"}, []string{"format", "help"}},
	} {
		code, stdout, stderr := runCmd(append(tc.args, "--help")...)
		require.Equal(t, exitOK, code, stderr)
		_, flags, ok := strings.Cut(stdout, "Flags:")
		require.True(t, ok, stdout)
		var got []string
		for _, m := range flag.FindAllStringSubmatch(flags, -1) {
			got = append(got, m[1])
		}
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		require.Equal(t, want, got, "%v --help", tc.args)
	}
}

// version prints the module path and its version, and the revision when the build has one.
func TestVersion(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd("version", "--format", "json")
	require.Equal(t, exitOK, code, stderr)
	var v versionJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &v), stdout)
	require.Equal(t, "github.com/harvester-dev/harvester", v.Module)
	require.NotEmpty(t, v.Version)
	require.True(t, strings.HasPrefix(v.Go, "go"), v.Go)
	code, stdout, stderr = runCmd("version")
	require.Equal(t, exitOK, code, stderr)
	require.True(t, strings.HasPrefix(stdout, "harvester github.com/harvester-dev/harvester "+v.Version+"\n"), stdout)

	// A build from a commit: the revision, its time, and whether the tree was modified.
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/harvester-dev/harvester"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "9439af9e"}, {Key: "vcs.time", Value: "2026-12-06T22:00:00Z"},
			{Key: "vcs.modified", Value: "true"}}}
	got := versionOf(bi)
	require.Equal(t, versionJSON{Module: "github.com/harvester-dev/harvester", Version: "(devel)", Revision: "9439af9e",
		Time: "2026-12-06T22:00:00Z", Modified: true, Go: "go1.26.8"}, got)
	var out strings.Builder
	require.NoError(t, printVersion(&out, got, "text"))
	require.Equal(t, "harvester github.com/harvester-dev/harvester (devel)\n"+
		"revision: 9439af9e (2026-12-06T22:00:00Z), with uncommitted changes\ngo: go1.26.8\n", out.String())
}
