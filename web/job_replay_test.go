package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store"
)

// TestJobPageOffersReplayOnlyWhereItDoesSomething: a job whose errored records failed
// validation offers no replay and says what to do instead (so does an older job of the source,
// which a replay would refuse); once a stage gave up on one of its
// records (kept on harvest.v1.failed.<stage>), the page offers to replay that one, and the
// replay sends it.
func TestJobPageOffersReplayOnlyWhereItDoesSomething(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := sqliteStore(t)
	f := seed(t, st)
	bus, err := router.Connect(ctx, natstest.URL(t))
	require.NoError(t, err)
	t.Cleanup(bus.Close)
	log := slog.New(slog.DiscardHandler)
	h, err := api.New(api.Config{APIKey: testKey}, api.Deps{Store: st, Logger: log})
	require.NoError(t, err)
	w, err := New(Config{APIKey: testKey}, Deps{Store: st, API: h, Logger: log, Jobs: jobs.New(st, bus)})
	require.NoError(t, err)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	b := (&site{store: st, url: srv.URL}).browser(t)

	// The newest job of the source: record "v" failed validation, "s" failed in SYNC.
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: f.src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	for ident, e := range map[string]harvest.RecordError{
		"v": {Type: harvest.TypeValidationError, Message: "$.title: missing property", Severity: harvest.SeverityError},
		"s": {Type: harvest.TypeStageError, Message: "sync stage failed: refused", Severity: harvest.SeverityError},
	} {
		_, _, err := st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: harvest.IdentifierKey(ident),
			Identifier: ident, Outcome: harvest.OutcomeErrored, Errors: []harvest.RecordError{e}})
		require.NoError(t, err)
	}
	finishJob(t, st, job.ID, 2)
	page := "/harvest_jobs/" + job.ID

	_, body := b.get(page)
	require.NotContains(t, body, `id="action-replay"`, "nothing a stage gave up on: a replay would send nothing")
	require.Contains(t, body, `id="replay-note"`)
	require.Contains(t, body, "Nothing to replay: no stage gave up on the 2 errored records")
	require.Contains(t, body, "Fix the source and run the harvest again")
	_, body = b.get("/harvest_jobs/" + f.job1.ID) // errored, but an older job: a replay is refused
	require.NotContains(t, body, `id="action-replay"`)
	require.Contains(t, body, "Replay refused: the source has a newer job, "+job.ID)

	m, err := harvest.RecordMessage(harvest.SubjectFailedPrefix+harvest.StageSync, &harvest.Record{JobID: job.ID,
		SourceID: f.src.ID, Identifier: "s", JobType: harvest.JobHarvest})
	require.NoError(t, err)
	require.NoError(t, bus.Publisher().Publish(harvest.SubjectFailedPrefix+harvest.StageSync, m))
	_, body = b.get(page)
	require.Contains(t, body, `id="action-replay"`)
	require.Contains(t, body, "Replay failed records (1 a stage gave up on)")
	require.NotContains(t, body, `id="replay-note"`)

	b.signIn()
	res, body := b.post(page+"/replay", url.Values{"csrf_token": {b.csrf(page + "/replay")}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, body)
	reopened, err := st.OutcomeReopenedCount(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, 1, reopened, "the record is on its way to SYNC again")
	_, body = b.get(page)
	require.NotContains(t, body, `id="action-replay"`, "the record is in flight: replaying again would send nothing")
}
