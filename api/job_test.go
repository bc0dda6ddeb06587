package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
)

func TestJobCreate(t *testing.T) {
	t.Parallel()
	b := setup(t)

	t.Run("202 then 409 while unfinished", func(t *testing.T) {
		t.Parallel()
		src := b.newSource(t, "")
		path := "/api/v1/harvest_sources/" + src.ID + "/jobs"
		r := b.write(t, http.MethodPost, path, nil)
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		job := r.object(t)
		requireSchema(t, "HarvestJob", job)
		require.Equal(t, "harvest", job["job_type"], "the default job type")
		require.Equal(t, "new", job["status"])
		require.Equal(t, src.ID, job["source_id"])
		require.Equal(t, "/api/v1/harvest_jobs/"+job["id"].(string), r.header.Get("Location"))

		requireError(t, b.write(t, http.MethodPost, path, map[string]any{"job_type": "force_harvest"}),
			http.StatusConflict, "already has an unfinished job")
		b.failJob(t, job["id"].(string))
		again := b.write(t, http.MethodPost, path, map[string]any{"job_type": "force_harvest"})
		require.Equal(t, http.StatusAccepted, again.status, "body: %s", again.body)
		require.Equal(t, "force_harvest", again.object(t)["job_type"])
	})
	t.Run("job types", func(t *testing.T) {
		t.Parallel()
		for _, jt := range []string{"harvest", "force_harvest", "validate", "clear"} {
			src := b.newSource(t, "")
			r := b.write(t, http.MethodPost, "/api/v1/harvest_sources/"+src.ID+"/jobs", map[string]any{"job_type": jt})
			require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
			require.Equal(t, jt, r.object(t)["job_type"])
		}
	})
	t.Run("bad job_type", func(t *testing.T) {
		t.Parallel()
		src := b.newSource(t, "")
		f := requireFields(t, b.write(t, http.MethodPost, "/api/v1/harvest_sources/"+src.ID+"/jobs",
			map[string]any{"job_type": "delete_everything"}), "job_type")
		require.Contains(t, f["job_type"], "want harvest, force_harvest, validate or clear")
		requireFields(t, b.write(t, http.MethodPost, "/api/v1/harvest_sources/"+src.ID+"/jobs",
			map[string]any{"type": "harvest"}), "type")
	})
	t.Run("unknown source", func(t *testing.T) {
		t.Parallel()
		requireError(t, b.write(t, http.MethodPost, "/api/v1/harvest_sources/nope/jobs", nil),
			http.StatusNotFound, `harvest source "nope" not found`)
	})
}

func TestJobGet(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	src, job := b.newHarvestJob(t)
	path := "/api/v1/harvest_jobs/" + job.ID

	got := b.get(t, path).object(t)
	requireSchema(t, "HarvestJob", got)
	require.Equal(t, map[string]any{"id": job.ID, "source_id": src.ID, "job_type": "harvest", "status": "in_progress",
		"total": 0.0, "added": 0.0, "updated": 0.0, "deleted": 0.0, "unchanged": 0.0, "errored": 0.0, "validated": 0.0, "warned": 0.0, "held": 0.0,
		"settled": 0.0, "expected": nil, "percent_settled": nil, "not_modified": false, "error": nil,
		"date_finished": nil}, without(got, "date_created"))

	_, err := b.store.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 3})
	require.NoError(t, err)
	_, _, err = b.store.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "a", Identifier: "a",
		Outcome: harvest.OutcomeAdded, Validated: true})
	require.NoError(t, err)
	got = b.get(t, path).object(t)
	require.Equal(t, 1.0, got["added"])
	require.Equal(t, 1.0, got["validated"])
	require.Equal(t, 1.0, got["settled"])
	require.Equal(t, 3.0, got["expected"])
	require.Equal(t, 33.3, got["percent_settled"], "rounded to one decimal")
	require.Equal(t, 3.0, got["total"], "the expected count while the job runs")

	b.failJob(t, job.ID)
	got = b.get(t, path).object(t)
	requireSchema(t, "HarvestJob", got)
	require.Equal(t, "error", got["status"])
	require.Equal(t, 33.3, got["percent_settled"], "a failed job keeps the share it settled")
	require.Equal(t, 1.0, got["total"], "what was counted")
	require.Equal(t, "ExtractError: GET https://data.example.gov/data.json: HTTP 404 Not Found", got["error"])
	require.NotNil(t, got["date_finished"])

	requireError(t, b.get(t, "/api/v1/harvest_jobs/nope"), http.StatusNotFound, `harvest job "nope" not found`)
}

func TestPercentSettled(t *testing.T) {
	t.Parallel()
	n := func(i int) *int { return &i }
	tests := []struct {
		name string
		job  store.HarvestJob
		want any
	}{
		{"expected unknown", store.HarvestJob{Status: harvest.JobInProgress, Settled: 5}, nil},
		{"nothing expected", store.HarvestJob{Status: harvest.JobInProgress, Expected: n(0)}, 100.0},
		{"two thirds", store.HarvestJob{Status: harvest.JobInProgress, Settled: 2, Expected: n(3)}, 66.7},
		{"none settled", store.HarvestJob{Status: harvest.JobInProgress, Expected: n(7)}, 0.0},
		{"complete", store.HarvestJob{Status: harvest.JobComplete, Settled: 7, Expected: n(7)}, 100.0},
		{"failed early", store.HarvestJob{Status: harvest.JobError, Settled: 1}, nil},
		{"cancelled halfway", store.HarvestJob{Status: harvest.JobError, Settled: 2, Expected: n(4)}, 50.0},
		{"failed, nothing expected", store.HarvestJob{Status: harvest.JobError, Expected: n(0)}, 100.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := jobs.PercentSettled(&tt.job)
			if tt.want == nil {
				require.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			require.Equal(t, tt.want, *got)
		})
	}
}

func TestJobList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a, other := b.newSource(t, ""), b.newSource(t, "")
	var ids []string // source a's jobs, oldest first
	for _, jt := range []harvest.JobType{harvest.JobHarvest, harvest.JobValidate, harvest.JobHarvest} {
		job := b.newJob(t, a.ID, jt)
		b.failJob(t, job.ID)
		ids = append(ids, job.ID)
	}
	running := b.newJob(t, a.ID, harvest.JobForceHarvest)
	ids = append(ids, running.ID)
	b.newJob(t, other.ID, harvest.JobHarvest)

	listIDs := func(t *testing.T, query string) (list[jobJSON], []string) {
		t.Helper()
		r := b.get(t, "/api/v1/harvest_jobs"+query)
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		l := decode[list[jobJSON]](t, r)
		got := []string{}
		for _, j := range l.Items {
			got = append(got, j.ID)
		}
		return l, got
	}

	all, _ := listIDs(t, "")
	require.Equal(t, 5, all.Total)
	require.Equal(t, 20, all.PerPage)

	l, got := listIDs(t, "?source_id="+a.ID)
	require.Equal(t, 4, l.Total)
	require.Equal(t, []string{ids[3], ids[2], ids[1], ids[0]}, got, "newest first")

	l, got = listIDs(t, "?source_id="+a.ID+"&per_page=3&page=2")
	require.Equal(t, 4, l.Total)
	require.Equal(t, 2, l.Page)
	require.Equal(t, 3, l.PerPage)
	require.Equal(t, []string{ids[0]}, got)

	l, got = listIDs(t, "?source_id="+a.ID+"&page=9")
	require.Equal(t, 4, l.Total)
	require.Empty(t, got)
	require.NotNil(t, l.Items, "an empty page is [], not null")

	_, got = listIDs(t, "?source_id="+a.ID+"&status=error")
	require.Equal(t, []string{ids[2], ids[1], ids[0]}, got)
	_, got = listIDs(t, "?status=in_progress&job_type=force_harvest")
	require.Equal(t, []string{running.ID}, got)
	_, got = listIDs(t, "?source_id="+a.ID+"&job_type=validate")
	require.Equal(t, []string{ids[1]}, got)
	l, _ = listIDs(t, "?source_id=nope")
	require.Equal(t, 0, l.Total)

	bad := []struct {
		query  string
		fields []string
	}{
		{"?status=done", []string{"status"}},
		{"?job_type=x", []string{"job_type"}},
		{"?per_page=101", []string{"per_page"}},
		{"?per_page=0", []string{"per_page"}},
		{"?page=0", []string{"page"}},
		{"?page=two&per_page=-1&status=x", []string{"page", "per_page", "status"}},
	}
	for _, tt := range bad {
		requireFields(t, b.get(t, "/api/v1/harvest_jobs"+tt.query), tt.fields...)
	}
}

func TestJobCancel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	src, id := b.queueJob(t)

	r := b.write(t, http.MethodPost, "/api/v1/harvest_jobs/"+id+"/cancel", nil)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	job := r.object(t)
	requireSchema(t, "HarvestJob", job)
	require.Equal(t, "error", job["status"])
	require.NotNil(t, job["date_finished"])

	errs := decode[list[jobErrorJSON]](t, b.get(t, "/api/v1/harvest_jobs/"+id+"/job_errors"))
	require.Equal(t, 1, errs.Total)
	require.Equal(t, "CancelledJob", errs.Items[0].Type)
	require.Equal(t, id, errs.Items[0].HarvestJobID)

	requireError(t, b.write(t, http.MethodPost, "/api/v1/harvest_jobs/"+id+"/cancel", nil), http.StatusConflict,
		"already finished (status error)")
	requireError(t, b.write(t, http.MethodPost, "/api/v1/harvest_jobs/nope/cancel", nil), http.StatusNotFound, "not found")

	// The source takes a new job once the cancelled one ended.
	require.Equal(t, http.StatusAccepted, b.write(t, http.MethodPost, "/api/v1/harvest_sources/"+src.ID+"/jobs", nil).status)
}
