package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store"
)

// TestJobReplay checks what POST /harvest_jobs/{id}/replay answers around the replay itself,
// on a real bus; cmd/harvester's TestReplayThroughTheAPI replays a real failure end to end.
func TestJobReplay(t *testing.T) {
	t.Parallel()
	bus, err := router.Connect(context.Background(), natstest.URL(t))
	require.NoError(t, err)
	t.Cleanup(bus.Close)
	b := setup(t, func(_ *Config, d *Deps) { d.Jobs = jobs.New(d.Store, bus) })
	finish := func(t *testing.T, job *store.HarvestJob) {
		t.Helper()
		_, err := b.store.JobSetExpected(context.Background(), &store.JobSetExpectedParams{JobID: job.ID})
		require.NoError(t, err)
		_, finished, err := b.store.JobFinish(context.Background(), job.ID)
		require.NoError(t, err)
		require.True(t, finished)
	}
	path := func(id string) string { return "/api/v1/harvest_jobs/" + id + "/replay" }

	src, older := b.newHarvestJob(t)
	requireError(t, b.write(t, http.MethodPost, path(older.ID), nil), http.StatusConflict,
		"is in_progress; only the records of a complete job are replayed")
	finish(t, older)

	// Nothing a stage gave up on: 200, replayed 0, and why.
	r := b.write(t, http.MethodPost, path(older.ID), map[string]any{"stage": "sync", "since": "2026-11-30T08:00:00Z"})
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	requireSchema(t, "ReplayResult", r.object(t))
	require.Equal(t, map[string]any{"job_id": older.ID, "found": 0.0, "replayed": 0.0, "skipped": 0.0,
		"message": "Nothing to replay: no record of job " + older.ID + " failed in the stage and time asked for"}, r.object(t))
	r = b.write(t, http.MethodPost, path(older.ID), nil)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	require.Equal(t, "Nothing to replay: job "+older.ID+" has no errored records", r.object(t)["message"])

	newer := b.newJob(t, src.ID, harvest.JobHarvest)
	requireError(t, b.write(t, http.MethodPost, path(older.ID), nil), http.StatusConflict,
		"the source has a newer job, "+newer.ID)

	requireError(t, b.write(t, http.MethodPost, path("6f1c1b5e-0000-4000-8000-000000000000"), nil), http.StatusNotFound,
		`harvest job "6f1c1b5e-0000-4000-8000-000000000000" not found`)
	f := requireFields(t, b.write(t, http.MethodPost, path(older.ID), map[string]any{"stage": "extract", "since": "today"}),
		"stage", "since")
	require.Contains(t, f["stage"], "want compare, transform, validate, sync, check")
	require.Contains(t, f["since"], "not an RFC 3339 time")

	noBus := setup(t)
	requireError(t, noBus.write(t, http.MethodPost, path(older.ID), nil), http.StatusServiceUnavailable,
		"replay needs the NATS bus")
}
