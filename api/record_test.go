package api

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// jobWithErrors makes a job with three record errors: two on a stored record whose identifier
// and message are spreadsheet formulas, one on a record that never got a row.
func jobWithErrors(t *testing.T, b *testBundle) (*store.HarvestJob, *store.HarvestRecord) {
	t.Helper()
	ctx := context.Background()
	src, job := b.newHarvestJob(t)
	rec, err := b.store.RecordInsert(ctx, &store.RecordInsertParams{ID: "rec-" + job.ID, JobID: job.ID, SourceID: src.ID,
		Identifier: "=HYPERLINK(\"http://evil\")", Action: harvest.ActionCreate, SourceHash: "f00d",
		SourceRaw: `{"identifier": "=HYPERLINK(\"http://evil\")"}`})
	require.NoError(t, err)
	_, _, err = b.store.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: rec.Identifier,
		Identifier: rec.Identifier, RecordID: rec.ID, Outcome: harvest.OutcomeErrored, Status: harvest.RecordErrorValidation,
		Errors: []harvest.RecordError{
			{Type: "ValidationError", Message: "$: 'title' is a required property", Severity: harvest.SeverityError},
			{Type: "ValidationError", Message: "@SUM(A1:A9), \"quoted\"\nand a new line", Severity: harvest.SeverityWarning},
		}})
	require.NoError(t, err)
	_, _, err = b.store.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "#3",
		Identifier: "-dataset-3", Outcome: harvest.OutcomeErrored,
		Errors: []harvest.RecordError{{Type: "DuplicateIdentifier", Message: "+repeats", Severity: harvest.SeverityError}}})
	require.NoError(t, err)
	return job, rec
}

func TestRecordErrorsJSON(t *testing.T) {
	t.Parallel()
	b := setup(t)
	job, rec := jobWithErrors(t, b)
	path := "/api/v1/harvest_jobs/" + job.ID + "/record_errors"

	r := b.get(t, path)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	requireSchema(t, "RecordErrorList", r.object(t))
	l := decode[list[map[string]any]](t, r)
	require.Equal(t, 3, l.Total)
	require.Equal(t, []map[string]any{
		{"harvest_record_id": nil, "identifier": "-dataset-3", "type": "DuplicateIdentifier", "message": "+repeats", "severity": "error",
			"carried_from_job_id": nil},
		{"harvest_record_id": rec.ID, "identifier": rec.Identifier, "type": "ValidationError",
			"message": "$: 'title' is a required property", "severity": "error", "carried_from_job_id": nil},
		{"harvest_record_id": rec.ID, "identifier": rec.Identifier, "type": "ValidationError",
			"message": "@SUM(A1:A9), \"quoted\"\nand a new line", "severity": "warning", "carried_from_job_id": nil},
	}, l.Items, "JSON is not escaped for spreadsheets")

	page := decode[list[map[string]any]](t, b.get(t, path+"?per_page=2&page=2"))
	require.Equal(t, 3, page.Total)
	require.Len(t, page.Items, 1)
	require.Equal(t, "warning", page.Items[0]["severity"])

	requireError(t, b.get(t, "/api/v1/harvest_jobs/nope/record_errors"), http.StatusNotFound, `harvest job "nope" not found`)
	requireFields(t, b.get(t, path+"?format=xml"), "format")
	empty := decode[list[map[string]any]](t, b.get(t, "/api/v1/harvest_jobs/"+b.newJob(t, b.newSource(t, "").ID, harvest.JobHarvest).ID+"/record_errors"))
	require.Equal(t, 0, empty.Total)
	require.NotNil(t, empty.Items)
}

func TestRecordErrorsCSV(t *testing.T) {
	t.Parallel()
	b := setup(t)
	job, rec := jobWithErrors(t, b)

	r := b.get(t, "/api/v1/harvest_jobs/"+job.ID+"/record_errors?format=csv&per_page=1")
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	require.Equal(t, "text/csv; charset=utf-8", r.header.Get("Content-Type"))
	require.Equal(t, `attachment; filename=harvest-job-`+job.ID+`-record-errors.csv`, r.header.Get("Content-Disposition"))

	rows, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
	require.NoError(t, err)
	require.Equal(t, [][]string{
		{"harvest_job_id", "harvest_record_id", "identifier", "type", "severity", "message", "carried_from_job_id"},
		{job.ID, "", "'-dataset-3", "DuplicateIdentifier", "error", "'+repeats", ""},
		{job.ID, rec.ID, `'=HYPERLINK("http://evil")`, "ValidationError", "error", "$: 'title' is a required property", ""},
		{job.ID, rec.ID, `'=HYPERLINK("http://evil")`, "ValidationError", "warning", "'@SUM(A1:A9), \"quoted\"\nand a new line", ""},
	}, rows, "every row, whatever per_page says; formulas defused")

	requireError(t, b.get(t, "/api/v1/harvest_jobs/nope/record_errors?format=csv"), http.StatusNotFound, "not found")
}

// TestRecordErrorsCarried: a later job that counts the unchanged invalid record as errored
// again lists the rows it carried, naming the job that found them, in JSON and CSV.
func TestRecordErrorsCarried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first, rec := jobWithErrors(t, b)
	_, err := b.store.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: first.ID, Expected: 2})
	require.NoError(t, err)
	_, finished, err := b.store.JobFinish(ctx, first.ID)
	require.NoError(t, err)
	require.True(t, finished)
	job := b.newJob(t, first.SourceID, harvest.JobHarvest)
	_, _, err = b.store.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: rec.Identifier,
		Identifier: rec.Identifier, Outcome: harvest.OutcomeErrored, CarriedFromRecordID: rec.ID})
	require.NoError(t, err)

	path := "/api/v1/harvest_jobs/" + job.ID + "/record_errors"
	r := b.get(t, path)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	requireSchema(t, "RecordErrorList", r.object(t))
	l := decode[list[map[string]any]](t, r)
	require.Equal(t, []map[string]any{
		{"harvest_record_id": rec.ID, "identifier": rec.Identifier, "type": "ValidationError",
			"message": "$: 'title' is a required property", "severity": "error", "carried_from_job_id": first.ID},
		{"harvest_record_id": rec.ID, "identifier": rec.Identifier, "type": "ValidationError",
			"message": "@SUM(A1:A9), \"quoted\"\nand a new line", "severity": "warning", "carried_from_job_id": first.ID},
	}, l.Items)

	r = b.get(t, path+"?format=csv")
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	rows, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 3)
	require.Equal(t, []string{job.ID, rec.ID, `'=HYPERLINK("http://evil")`, "ValidationError", "error",
		"$: 'title' is a required property", first.ID}, rows[1])
}

func TestSafeCells(t *testing.T) {
	t.Parallel()
	require.Equal(t,
		[]string{"'=1+1", "'+1", "'-1", "'@x", "'\tx", "'\rx", "a=b", "", "plain", "'=", "ünïcode"},
		safeCells("=1+1", "+1", "-1", "@x", "\tx", "\rx", "a=b", "", "plain", "=", "ünïcode"))
}

func TestRecordGet(t *testing.T) {
	t.Parallel()
	b := setup(t)
	job, rec := jobWithErrors(t, b)

	r := b.get(t, "/api/v1/harvest_records/"+rec.ID)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	got := r.object(t)
	requireSchema(t, "HarvestRecord", got)
	require.Equal(t, map[string]any{"id": rec.ID, "harvest_job_id": job.ID, "harvest_source_id": job.SourceID,
		"identifier": rec.Identifier, "action": "create", "status": "error_validation", "source_hash": "f00d",
		"source_raw": rec.SourceRaw, "source_transform": nil}, without(got, "date_created"))
	require.NotEmpty(t, got["date_created"])

	requireError(t, b.get(t, "/api/v1/harvest_records/nope"), http.StatusNotFound, `harvest record "nope" not found`)
	requireError(t, b.get(t, "/api/v1/harvest_records"), http.StatusNotFound, "no such resource") // no list of records
}

func TestJobErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, job := b.newHarvestJob(t)

	none := decode[list[jobErrorJSON]](t, b.get(t, "/api/v1/harvest_jobs/"+job.ID+"/job_errors"))
	require.Equal(t, 0, none.Total)
	require.NotNil(t, none.Items)

	b.failJob(t, job.ID)
	r := b.get(t, "/api/v1/harvest_jobs/"+job.ID+"/job_errors")
	require.Equal(t, http.StatusOK, r.status)
	requireSchema(t, "JobErrorList", r.object(t))
	l := decode[list[jobErrorJSON]](t, r)
	require.Equal(t, 1, l.Total)
	require.Equal(t, "ExtractError", l.Items[0].Type)
	require.Contains(t, l.Items[0].Message, "HTTP 404")
	require.Empty(t, decode[list[jobErrorJSON]](t, b.get(t, "/api/v1/harvest_jobs/"+job.ID+"/job_errors?page=2")).Items)

	requireError(t, b.get(t, "/api/v1/harvest_jobs/nope/job_errors"), http.StatusNotFound, "not found")
}
