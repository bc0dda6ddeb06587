package pipeline_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/scheduler"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// Jobs queued through the API start without waiting for the scheduler's tick: the first at
// once (the API kicks the scheduler), the second as soon as the first finished (its report
// event kicks it), with one job in progress at a time and an hour between ticks.
func TestQueuedJobsStartWithoutWaitingForTheTick(t *testing.T) {
	ctx := context.Background()
	st := dbtest.Store(t)
	p, err := pipeline.New(ctx, pipeline.Config{Store: st, NATSURL: natstest.URL(t),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Stages: pipeline.StageNames(), SearchIndex: "none",
		Scheduler: &scheduler.Config{Interval: time.Hour, MaxInProgress: 1}, API: &api.Config{APIKey: "k"}})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	require.NoError(t, p.Start(ctx))
	srv := httptest.NewServer(p.Handler())
	t.Cleanup(srv.Close)

	var jobs []string
	for _, f := range []string{"dcatus/datagov-cftc.data.json", "dcatus/agency-cfpb-2025-07.data.json"} {
		src, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: f, URL: corpustest.Path(t, f),
			SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11NonFederal,
			Frequency: harvest.FrequencyManual})
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/harvest_sources/"+src.ID+"/jobs",
			strings.NewReader(`{"job_type":"harvest"}`))
		require.NoError(t, err)
		req.Header.Set("X-API-Key", "k")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusAccepted, resp.StatusCode)
		queued, _, err := st.JobList(ctx, &store.JobListParams{SourceID: src.ID})
		require.NoError(t, err)
		require.Len(t, queued, 1)
		jobs = append(jobs, queued[0].ID)
	}
	deadline := time.Now().Add(2 * time.Minute) // a failsafe, far below the hour between ticks
	for _, id := range jobs {
		for {
			job, err := st.JobGet(ctx, id)
			require.NoError(t, err)
			if job.Status.Finished() {
				require.Equal(t, harvest.JobComplete, job.Status)
				break
			}
			require.True(t, time.Now().Before(deadline), "job %s still %s: not started before the next tick", id, job.Status)
			time.Sleep(10 * time.Millisecond)
		}
	}
}
