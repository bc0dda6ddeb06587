package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/stages/check"
)

// refuseLinkResults makes every write of a stored link check fail with a real Postgres error (a
// trigger in the test's own schema), so CHECK gives up on its messages for good; fix ends it.
func refuseLinkResults(t *testing.T, dbURL string) (fix func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(ctx) })
	_, err = conn.Exec(ctx, `CREATE FUNCTION refuse_link_result() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'link check of % refused by the test', NEW.url; END $$;
		CREATE TRIGGER refuse_link_result BEFORE INSERT OR UPDATE ON link_result
		FOR EACH ROW EXECUTE FUNCTION refuse_link_result()`)
	require.NoError(t, err)
	return func() {
		_, err := conn.Exec(ctx, `DROP TRIGGER refuse_link_result ON link_result`)
		require.NoError(t, err)
	}
}

// failedChecks is how many messages HARVEST_FAILED keeps on CHECK's failed subject.
func failedChecks(t *testing.T, js jetstream.JetStream) uint64 {
	t.Helper()
	subject := harvest.SubjectFailedPrefix + harvest.StageCheck
	stream, err := js.Stream(t.Context(), router.StreamFailed)
	require.NoError(t, err)
	info, err := stream.Info(t.Context(), jetstream.WithSubjectFilter(subject))
	require.NoError(t, err)
	return info.State.Subjects[subject]
}

// TestCheckReplay: the link checks CHECK gave up on are replayed (jobs.Control.Replay with stage
// check, as `harvester replay --stage check` and the API call it) on a real NATS JetStream.
// While the store refuses every link check, a CHECK worker gives up on each LinkCheck of the
// job (the ones that requested a URL), which HARVEST_FAILED keeps on harvest.v1.failed.check; once the cause is fixed, a replay
// sends every one to CHECK again, and the worker checks and stores every URL; a second replay
// finds no URL left to check and sends nothing, saying so.
func TestCheckReplay(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	site := newHeldSite(t)
	site.free()
	const copies = 5
	catalogURL, urls, _ := sharedCatalog(t, site.URL, copies)
	links := &pipeline.LinkCheckConfig{Recheck: check.DefaultRecheck, Checker: check.Config{HostRate: 200}}
	ctx := context.Background()

	rep := harvestWithoutCheck(t, h, links, catalogURL)
	const messages = 11 + copies // one LinkCheck per added dataset

	fix := refuseLinkResults(t, h.DatabaseURL)
	worker := h.Config
	worker.LinkChecks = links
	worker.Stages = []string{pipeline.StageCheck}
	pl, err := pipeline.New(ctx, worker)
	require.NoError(t, err)
	require.NoError(t, pl.Start(ctx))
	t.Cleanup(pl.Close)

	nc, err := nats.Connect(h.NATSURL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	awaitCheckDrained(t, h.NATSURL, messages)
	// A message whose URLs were all being checked by another message's handler is acked when
	// that one gives up (checkDue); the one that gave up is kept, so every URL is in one.
	failed := int(failedChecks(t, js))
	require.Positive(t, failed, "CHECK gives up on the LinkChecks of the job")
	got, err := h.Store.LinkResultGet(ctx, urls)
	require.NoError(t, err)
	require.Empty(t, got, "the store refused every check")

	fix()
	control := jobs.New(h.Store, pl.Bus())
	res, err := control.Replay(ctx, &jobs.ReplayParams{JobID: rep.JobID, Stage: harvest.StageCheck})
	require.NoError(t, err)
	// The replay sends the failed messages one after another while the worker checks what it
	// sent: a later message whose URLs the worker checked meanwhile (copies of a dataset share
	// them) is skipped, not sent again; each one is sent or skipped, never lost.
	require.Equal(t, failed, res.Found)
	require.Positive(t, res.Replayed)
	require.Equal(t, res.Replayed, res.LinkChecks)
	require.Equal(t, failed, res.Replayed+res.Skipped, "every failed message sent or skipped: %+v", *res)
	require.Empty(t, res.Message)
	require.Eventually(t, func() bool {
		got, err := h.Store.LinkResultGet(ctx, urls)
		require.NoError(t, err)
		return len(got) == len(urls)
	}, 10*time.Minute, 20*time.Millisecond, "the worker stores a check of every URL the replay sent")
	require.EqualValues(t, failed, failedChecks(t, js), "nothing failed again")

	again, err := control.Replay(ctx, &jobs.ReplayParams{JobID: rep.JobID})
	require.NoError(t, err)
	require.Equal(t, [4]int{failed, 0, 0, failed}, [4]int{again.Found, again.Replayed, again.LinkChecks, again.Skipped},
		"every URL was checked since the job was created")
	require.Contains(t, again.Message, "Nothing to replay")
}
