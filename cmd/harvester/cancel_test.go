package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/change"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// cancelBackend is where TestCancelledJobLeavesNothingBehind runs: the flags of its services
// and how to open its store beside the harvester.
type cancelBackend struct {
	services []string
	open     func(t *testing.T) store.Store
}

// TestCancelledJobLeavesNothingBehind: a job cancelled with 'harvester job cancel' while its
// records are on their way (compared, some synced, none counted) leaves no pending record;
// the next run does not report the records it synced as updated; and after one complete job,
// conditional GET is back on, also after a cancelled force_harvest. On both backends.
func TestCancelledJobLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	dbURL, dataDir := dbtest.URL(t), t.TempDir()
	backends := map[string]cancelBackend{
		"postgres": {services: []string{"--database-url", dbURL, "--nats-url", natstest.URL(t), "--data-dir", t.TempDir()},
			open: func(t *testing.T) store.Store {
				st, err := postgres.Open(context.Background(), dbURL)
				require.NoError(t, err)
				return st
			}},
		"embedded": {services: []string{"--database-url", "", "--nats-url", "", "--data-dir", dataDir},
			open: func(t *testing.T) store.Store {
				st, err := sqlite.Open(context.Background(), filepath.Join(dataDir, "harvester.db"))
				require.NoError(t, err)
				return st
			}},
	}
	for name, be := range backends {
		t.Run(name, func(t *testing.T) { testCancelledJob(t, be) })
	}
}

func testCancelledJob(t *testing.T, be cancelBackend) {
	t.Parallel()
	srv := newETagServer(t)
	url := srv.URL + "/data.json"
	harvestJob := func(extra ...string) jobReport {
		t.Helper()
		rep := runJSON(t, append(append([]string{"harvest", "--url", url, "--schema-type", federal}, extra...), be.services...)...)
		require.Equal(t, "complete", rep.Status, rep.JobErrors)
		return rep
	}
	counts := func(r jobReport) [5]int { return [5]int{r.Added, r.Updated, r.Deleted, r.Unchanged, r.Errored} }

	cancelled := func(sourceID string, jobType harvest.JobType, action harvest.Action, records map[string]json.RawMessage) {
		t.Helper()
		cancelMidway(t, be, sourceID, jobType, action, records)
	}

	srv.serve(t, "dcatus/agency-gsa-2025-01.data.json", `"v1"`)
	first := harvestJob()
	require.Equal(t, [5]int{339, 0, 0, 0, 0}, counts(first))

	// A harvest of the next version, cancelled after it synced half of the records it changed.
	older := catalogRecords(t, "dcatus/agency-gsa-2025-01.data.json")
	newer := catalogRecords(t, "dcatus/agency-gsa-2025-07.data.json")
	changed := map[string]json.RawMessage{}
	for id, raw := range newer {
		if old, ok := older[id]; ok && !jsonSame(t, old, raw) {
			changed[id] = raw
		}
	}
	require.Len(t, changed, 99)
	cancelled(first.SourceID, harvest.JobHarvest, harvest.ActionUpdate, changed)

	srv.serve(t, "dcatus/agency-gsa-2025-07.data.json", `"v2"`)
	next := harvestJob()
	require.False(t, srv.lastConditional(t), "after a cancelled job the document is read whole")
	require.Equal(t, [5]int{4, 99 - 49, 0, 240 + 49, 0}, counts(next),
		"the 49 records the cancelled job synced are in the catalog already: unchanged, not updated")
	again := harvestJob()
	require.True(t, srv.lastConditional(t))
	require.True(t, again.NotModified)

	// A force_harvest cancelled halfway: its records did not change, so once a harvest has
	// completed, conditional GET is on again.
	cancelled(first.SourceID, harvest.JobForceHarvest, harvest.ActionUpdate, newer)
	afterForce := harvestJob()
	require.False(t, srv.lastConditional(t), "the last job was cancelled")
	require.Equal(t, [5]int{0, 0, 0, 343, 0}, counts(afterForce))
	last := harvestJob()
	require.True(t, srv.lastConditional(t), "conditional GET is on again")
	require.True(t, last.NotModified)
	require.Equal(t, [5]int{0, 0, 0, 343, 0}, counts(last))
}

// cancelMidway starts a job of jobType as the stages would have left it when it is cancelled:
// each of records compared (a pending harvest_record), the first half of them synced (the
// dataset is that record), none counted; then cancels it with 'harvester job cancel' without
// --nats-url, so that the command runs the aggregator itself, which reports the job; and checks
// that the job left no pending record.
func cancelMidway(t *testing.T, be cancelBackend, sourceID string, jobType harvest.JobType, action harvest.Action,
	records map[string]json.RawMessage) {
	t.Helper()
	ctx := context.Background()
	st := be.open(t)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: sourceID, JobType: jobType})
	require.NoError(t, err)
	var recordIDs []string
	for i, id := range slices.Sorted(maps.Keys(records)) {
		hash, err := change.SourceHash(records[id])
		require.NoError(t, err)
		rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: harvest.RecordID(job.ID, id), JobID: job.ID,
			SourceID: sourceID, Identifier: id, Action: action, SourceHash: hash, SourceRaw: string(records[id]),
			SchemaType: federal})
		require.NoError(t, err)
		recordIDs = append(recordIDs, rec.ID)
		if i < len(records)/2 {
			_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: sourceID, Identifier: id,
				Slug: "s-" + uuid.NewString()[:8], DCAT: records[id], RecordID: rec.ID})
			require.NoError(t, err)
		}
	}
	st.Close()

	code, stdout, stderr := runCmd("job", "cancel", job.ID, be.services[0], be.services[1], "--nats-url", "", be.services[4], be.services[5])
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "CancelledJob")
	require.Contains(t, stdout, "Reported: the job aggregator published the harvest report event")
	st = be.open(t)
	defer st.Close()
	for _, id := range recordIDs {
		rec, err := st.RecordGet(ctx, id)
		require.NoError(t, err)
		require.NotEqual(t, harvest.RecordPending, rec.Status, "a cancelled job leaves no pending record")
	}
}

// jsonSame reports whether two JSON documents are equal as values.
func jsonSame(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	require.NoError(t, json.Unmarshal(a, &x))
	require.NoError(t, json.Unmarshal(b, &y))
	ja, err := json.Marshal(x)
	require.NoError(t, err)
	jb, err := json.Marshal(y)
	require.NoError(t, err)
	return bytes.Equal(ja, jb)
}
