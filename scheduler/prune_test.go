package scheduler

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/retention"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// recordingPruner records the clock of each Prune call and, while hold is set, blocks each
// call until its context ends (a long prune).
type recordingPruner struct {
	mu    sync.Mutex
	calls []time.Time
	ended int // calls that returned
	hold  bool
}

func (p *recordingPruner) Prune(ctx context.Context, now time.Time) error {
	p.mu.Lock()
	p.calls = append(p.calls, now)
	hold := p.hold
	p.mu.Unlock()
	if hold {
		<-ctx.Done()
	}
	p.mu.Lock()
	p.ended++
	p.mu.Unlock()
	return ctx.Err()
}

func (p *recordingPruner) state() (calls []time.Time, ended int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Time(nil), p.calls...), p.ended
}

// waitUntil polls cond with a generous limit that only stops a hung test.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "waiting for %s", what)
		time.Sleep(5 * time.Millisecond)
	}
}

func openSQLite(t *testing.T, path string) store.Store {
	t.Helper()
	st, err := sqlite.Open(t.Context(), path)
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(t.Context()))
	return st
}

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestPruneSchedule: the leader runs the pruner at its first tick, with its clock, and again
// only once PruneInterval has passed since the last run started, one run at a time; a
// scheduler that does not lead never runs it; Stop ends a run in flight.
func TestPruneSchedule(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "h.db")
	ctx := t.Context()
	p := &recordingPruner{}
	s, err := New(Config{Holder: "a", Pruner: p, PruneInterval: time.Hour}, openSQLite(t, path), nil, quietLog)
	require.NoError(t, err)
	clock := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }

	require.NoError(t, s.Tick(ctx))
	waitUntil(t, "the first run to end", func() bool { _, ended := p.state(); return ended == 1 })
	calls, _ := p.state()
	require.Equal(t, []time.Time{clock}, calls, "run at the first tick with the scheduler's clock")

	clock = clock.Add(59 * time.Minute)
	require.NoError(t, s.Tick(ctx))
	calls, _ = p.state()
	require.Len(t, calls, 1, "not before the interval")

	p.mu.Lock()
	p.hold = true
	p.mu.Unlock()
	clock = clock.Add(time.Minute)
	require.NoError(t, s.Tick(ctx))
	waitUntil(t, "the second run to start", func() bool { calls, _ := p.state(); return len(calls) == 2 })
	clock = clock.Add(2 * time.Hour)
	require.NoError(t, s.Tick(ctx))
	calls, _ = p.state()
	require.Len(t, calls, 2, "one run at a time")

	other := &recordingPruner{}
	b, err := New(Config{Holder: "b", Pruner: other, LeaderTTL: time.Hour}, openSQLite(t, path), nil, quietLog)
	require.NoError(t, err)
	require.NoError(t, b.Tick(ctx))
	calls, _ = other.state()
	require.Empty(t, calls, "a scheduler that does not lead does not prune")

	s.Stop() // never started: Stop still ends the run a Tick began
	_, ended := p.state()
	require.Equal(t, 2, ended, "Stop ended the run in flight")
}

// TestPruneByLeader: serve's wiring, a real retention.Pruner on the leader, prunes a record
// version superseded longer ago than the retention at the first tick, and keeps the one a
// dataset points at.
func TestPruneByLeader(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := openSQLite(t, filepath.Join(t.TempDir(), "h.db"))
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: "https://example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	var records []string
	for range 2 {
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: "a", Action: harvest.ActionCreate, SourceHash: uuid.NewString()})
		require.NoError(t, err)
		_, _, err = st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "a", Identifier: "a",
			RecordID: rec.ID, Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess})
		require.NoError(t, err)
		_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: "a", Slug: "a",
			DCAT: []byte(`{"identifier":"a"}`), RecordID: rec.ID})
		require.NoError(t, err)
		_, err = st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 1})
		require.NoError(t, err)
		_, finished, err := st.JobFinish(ctx, job.ID)
		require.NoError(t, err)
		require.True(t, finished)
		records = append(records, rec.ID)
	}
	pr, err := retention.New(retention.Config{Retention: time.Hour}, st, quietLog, nil)
	require.NoError(t, err)
	s, err := New(Config{Pruner: pr}, st, nil, quietLog)
	require.NoError(t, err)
	s.now = func() time.Time { return time.Now().Add(2 * time.Hour) } // the history is older than the retention
	require.NoError(t, s.Tick(ctx))
	waitUntil(t, "the superseded version to go", func() bool {
		_, err := st.RecordGet(ctx, records[0])
		return err != nil
	})
	_, err = st.RecordGet(ctx, records[0])
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = st.RecordGet(ctx, records[1])
	require.NoError(t, err, "the dataset's record stays")
	s.Stop()
}
