package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/store"
)

// failingIdentifier is the sample catalog's valid dataset whose dataset row the test's
// database refuses until the test "fixes the cause".
const failingIdentifier = "FAES-2024-002"

const sampleCatalog = "../../examples/agency-sample.data.json"

// refuseDataset makes every write of failingIdentifier's dataset fail with a real Postgres
// error (a trigger in the test's own schema), so SYNC gives up on that record for good.
func refuseDataset(t *testing.T, dbURL string) (fix func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(ctx) })
	_, err = conn.Exec(ctx, `CREATE FUNCTION refuse_dataset() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'dataset % refused by the test', NEW.identifier; END $$;
		CREATE TRIGGER refuse_dataset BEFORE INSERT OR UPDATE ON dataset
		FOR EACH ROW WHEN (NEW.identifier = '`+failingIdentifier+`') EXECUTE FUNCTION refuse_dataset()`)
	require.NoError(t, err)
	return func() {
		_, err := conn.Exec(ctx, `DROP TRIGGER refuse_dataset ON dataset`)
		require.NoError(t, err)
	}
}

// replay runs `harvester replay ARGS --format json` against the test's services.
func (b *testBundle) replay(t *testing.T, args ...string) (replayReport, int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"replay"}, args...)
	args = append(args, "--database-url", b.dbURL, "--nats-url", b.natsURL, "--format", "json", "--timeout", "1m")
	code := run(context.Background(), args, &out, &errOut)
	var rep replayReport
	if code == exitOK {
		require.NoError(t, json.Unmarshal(out.Bytes(), &rep), "stdout: %s\nstderr: %s", out.String(), errOut.String())
		require.Equal(t, rep.Job.Total, rep.Job.Added+rep.Job.Updated+rep.Job.Deleted+rep.Job.Unchanged+rep.Job.Errored,
			"counts add up")
	}
	return rep, code, out.String() + errOut.String()
}

// stageErrors returns the job's StageError rows for failingIdentifier.
func stageErrors(t *testing.T, st store.Store, jobID string) []*store.RecordError {
	t.Helper()
	errs, _, err := st.RecordErrorList(context.Background(), &store.RecordErrorListParams{JobID: jobID})
	require.NoError(t, err)
	var out []*store.RecordError
	for _, e := range errs {
		if e.Type == "StageError" {
			require.Equal(t, failingIdentifier, e.Identifier)
			out = append(out, e)
		}
	}
	return out
}

// sampleCounts are the sample catalog's counts on a first harvest: 32 added, 4 errored.
var sampleCounts = harvest.Counts{Total: 36, Added: 32, Errored: 4, Validated: 32}

// withFailure is sampleCounts with failingIdentifier errored in SYNC (it passed validation).
var withFailure = harvest.Counts{Total: 36, Added: 31, Errored: 5, Validated: 32}

// harvestWithFailure harvests sampleCatalog while SYNC refuses failingIdentifier's dataset
// (refuseDataset), checks the job's counts are withFailure, and returns its report and fix,
// which ends the refusal.
func (b *testBundle) harvestWithFailure(t *testing.T) (first jobReport, fix func()) {
	t.Helper()
	fix = refuseDataset(t, b.dbURL)
	first, code := b.harvest(t, "--file", sampleCatalog, "--schema-type", federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, withFailure, first.Counts, "SYNC gave up on one valid record")
	return first, fix
}

func TestReplayAfterTheCauseIsFixed(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	first, fix := b.harvestWithFailure(t)
	require.Equal(t, "complete", first.Status)
	failed := stageErrors(t, b.st, first.JobID)
	require.Len(t, failed, 1)
	require.Contains(t, failed[0].Message, "refused by the test")
	recordID := harvest.RecordID(first.JobID, failingIdentifier)
	rec, err := b.st.RecordGet(ctx, recordID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordFailed, rec.Status)
	replay := func(args ...string) replayReport {
		t.Helper()
		rep, code, out := b.replay(t, append([]string{"--job", first.JobID}, args...)...)
		require.Equal(t, exitOK, code, out)
		return rep
	}

	// The cause is not fixed yet: the record fails again, stays errored, and its new error row
	// replaces the old one.
	again := replay()
	require.Equal(t, jobs.ReplayResult{JobID: first.JobID, Found: 1, Replayed: 1}, again.ReplayResult)
	require.Equal(t, withFailure, again.Job.Counts)
	require.Len(t, stageErrors(t, b.st, first.JobID), 1, "the new StageError row replaced the old one")

	// Filters that match nothing (the record failed in sync, not validate; nothing was stored
	// after --since) replay nothing, and say so.
	for _, filter := range [][]string{{"--stage", "validate"}, {"--since", time.Now().Add(time.Minute).UTC().Format(time.RFC3339)}} {
		require.Equal(t, jobs.ReplayResult{JobID: first.JobID, Message: "Nothing to replay: no record of job " +
			first.JobID + " failed in the stage and time asked for"}, replay(filter...).ReplayResult, filter)
	}

	// Fixed: two replays at once send the record once between them, and it moves from errored
	// to added.
	fix()
	var wg sync.WaitGroup
	reps := make([]replayReport, 2)
	for i := range reps {
		wg.Go(func() { reps[i] = replay("--stage", "sync", "--since", "1h") })
	}
	wg.Wait()
	require.Equal(t, [2]int{2, 2}, [2]int{reps[0].Found, reps[1].Found}, "the first failure and the failure of the first replay")
	require.Equal(t, 1, reps[0].Replayed+reps[1].Replayed, "the record is sent once")
	job, err := b.st.JobGet(ctx, first.JobID)
	require.NoError(t, err)
	require.Equal(t, sampleCounts, job.Counts, "errored moved to added")
	require.Equal(t, harvest.JobComplete, job.Status)
	require.Empty(t, stageErrors(t, b.st, first.JobID))
	rec, err = b.st.RecordGet(ctx, recordID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordSuccess, rec.Status)
	d, err := b.st.DatasetGet(ctx, &store.DatasetGetParams{SourceID: job.SourceID, Identifier: failingIdentifier})
	require.NoError(t, err)
	require.Equal(t, recordID, d.RecordID)

	// Nothing is left to replay.
	done := replay()
	require.Equal(t, [3]int{2, 0, 2}, [3]int{done.Found, done.Replayed, done.Skipped})
	require.Contains(t, done.Message, "Nothing to replay: the 2 failed messages of job "+first.JobID+" that match were replayed already")
	require.Equal(t, sampleCounts, done.Job.Counts)

	// The next run finds the record unchanged, like every other; the old job can no longer be
	// replayed over it.
	second, code := b.harvest(t, "--file", sampleCatalog, "--schema-type", federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, [2]int{32, 4}, [2]int{second.Unchanged, second.Errored}, "the replayed record is unchanged; the invalid ones are errored again")
	_, code, out := b.replay(t, "--job", first.JobID)
	require.Equal(t, exitJobError, code)
	require.Contains(t, out, "the source has a newer job, "+second.JobID)
}

func TestReplayRefusals(t *testing.T) {
	b := setup(t)
	_, code, out := b.replay(t, "--job", "6f1c1b5e-0000-4000-8000-000000000000")
	require.Equal(t, exitJobError, code)
	require.Contains(t, out, `there is no job "6f1c1b5e-0000-4000-8000-000000000000"`)
	_, code, out = b.replay(t, "--job", "x", "--stage", "extract")
	require.Equal(t, exitUsage, code)
	require.Contains(t, out, `--stage: "extract" is not one of compare, transform, validate, sync, check`)
	_, code, out = b.replay(t, "--job", "x", "--since", "yesterday")
	require.Equal(t, exitUsage, code)
	require.Contains(t, out, `--since: "yesterday" is neither`)
	_, code, out = b.replay(t)
	require.Equal(t, exitUsage, code)
	require.Contains(t, out, "--job is required")

	src, err := b.st.SourceEnsure(context.Background(), &store.SourceEnsureParams{Name: "s", URL: "https://example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := b.st.JobInsert(context.Background(), &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	_, code, out = b.replay(t, "--job", job.ID)
	require.Equal(t, exitJobError, code)
	require.Contains(t, out, "is in_progress; only the records of a complete job are replayed")
}

// TestReplayThroughTheAPI replays a real failure with POST /api/v1/harvest_jobs/{id}/replay on
// a server whose stages run in the same process, as `harvester serve` wires it.
func TestReplayThroughTheAPI(t *testing.T) {
	b := setup(t)
	ctx := t.Context()
	first, fix := b.harvestWithFailure(t)

	pl, err := pipeline.New(ctx, pipeline.Config{Store: b.st, NATSURL: b.natsURL, Logger: slog.New(slog.DiscardHandler),
		Stages: pipeline.StageNames(), API: &api.Config{APIKey: "k"}, SearchIndex: "none"})
	require.NoError(t, err)
	t.Cleanup(pl.Close)
	require.NoError(t, pl.Start(ctx))
	reports, unsubscribe, err := pl.Bus().Reports()
	require.NoError(t, err)
	defer unsubscribe()
	h := pl.Handler()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	post := func(body string) (int, map[string]any) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/v1/harvest_jobs/"+first.JobID+"/replay",
			strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-API-Key", "k")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var v map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&v))
		return resp.StatusCode, v
	}

	status, body := post(`{"stage": "extract"}`)
	require.Equal(t, http.StatusUnprocessableEntity, status, body)
	status, body = post(`{"stage": "sync", "since": "2026-13-01"}`)
	require.Equal(t, http.StatusUnprocessableEntity, status, body)

	fix()
	status, body = post(`{"stage": "sync"}`)
	require.Equal(t, http.StatusAccepted, status, body)
	require.Equal(t, map[string]any{"job_id": first.JobID, "found": 1.0, "replayed": 1.0, "skipped": 0.0}, body)
	require.NoError(t, awaitReplayed(ctx, b.st, first.JobID))
	job, err := b.st.JobGet(ctx, first.JobID)
	require.NoError(t, err)
	require.Equal(t, sampleCounts, job.Counts)
	rep := awaitJobReport(t, reports, first.JobID)
	require.Equal(t, sampleCounts, rep.Counts, "the report event carries the new counts")

	status, body = post(``) // nothing left: 200, and why
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, [3]any{1.0, 0.0, 1.0}, [3]any{body["found"], body["replayed"], body["skipped"]})
	require.Contains(t, body["message"], "Nothing to replay")

	second, code := b.harvest(t, "--file", sampleCatalog, "--schema-type", federal)
	require.Equal(t, exitOK, code)
	status, body = post(``)
	require.Equal(t, http.StatusConflict, status, body)
	require.Contains(t, body["error"], "the source has a newer job, "+second.JobID)
}

// awaitJobReport returns the next report event of the job.
func awaitJobReport(t *testing.T, reports <-chan *harvest.Report, jobID string) *harvest.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for {
		select {
		case rep := <-reports:
			if rep.JobID == jobID {
				return rep
			}
		case <-ctx.Done():
			require.NoError(t, errors.New("no report event for the job"))
			return nil
		}
	}
}

// TestReplayEmbedded replays a real failure on the embedded default: SQLite (a trigger in the
// database file refuses the dataset) and the in-process nats-server keeping the failed stream
// in the data directory between commands.
func TestReplayEmbedded(t *testing.T) {
	dataDir := t.TempDir()
	embedded := []string{"--database-url", "", "--nats-url", "", "--data-dir", dataDir}
	code, _, stderr := runCmd(append([]string{"migrate"}, embedded...)...)
	require.Equal(t, exitOK, code, stderr)
	exec := func(stmt string) {
		db, err := sql.Open("sqlite", filepath.Join(dataDir, "harvester.db"))
		require.NoError(t, err)
		defer db.Close()
		_, err = db.Exec(stmt)
		require.NoError(t, err)
	}
	exec(`CREATE TRIGGER refuse_dataset BEFORE INSERT ON dataset WHEN NEW.identifier = '` + failingIdentifier + `'
		BEGIN SELECT RAISE(ABORT, 'dataset refused by the test'); END`)

	first := runJSON(t, append([]string{"harvest", "--file", sampleCatalog, "--schema-type", federal}, embedded...)...)
	require.Equal(t, withFailure, first.Counts)

	exec(`DROP TRIGGER refuse_dataset`)
	code, stdout, stderr := runCmd(append([]string{"replay", "--job", first.JobID, "--format", "json", "--timeout", "1m"},
		embedded...)...)
	require.Equal(t, exitOK, code, stderr)
	var rep replayReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	require.Equal(t, jobs.ReplayResult{JobID: first.JobID, Found: 1, Replayed: 1}, rep.ReplayResult)
	require.Equal(t, sampleCounts, rep.Job.Counts)
	require.Equal(t, "complete", rep.Job.Status)

	second := runJSON(t, append([]string{"harvest", "--file", sampleCatalog, "--schema-type", federal}, embedded...)...)
	require.Equal(t, [2]int{32, 4}, [2]int{second.Unchanged, second.Errored}, "the replayed record was stored like the others")
}
