package router_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
)

// TestBatchRetriesAFailedRecordAlone: a stage gets its queued records in one batch; a record
// that fails inside it is retried alone (a batch of one) while the others settle, and is
// settled when a retry succeeds; one that keeps failing goes to the failed subject after its
// tries, retried alone each time, and its give-up hook settles it. Every record settles once
// and every message is acked: nothing is left pending or redelivered.
func TestBatchRetriesAFailedRecordAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bus := testBus(t)
	const jobID = "00000000-0000-0000-0000-0000000000b7"
	ids := []string{"r0", "r1", "flaky", "r3", "broken"}
	queueRecords(t, bus, jobID, ids) // queued before the stage subscribes: one batch

	r, err := router.New(bus, router.Config{Logger: slog.New(slog.DiscardHandler), Registerer: prometheus.NewRegistry(),
		MaxRetries: 2, RetryInterval: time.Millisecond, BatchSize: 8, BatchLinger: time.Second})
	require.NoError(t, err)
	handler, calls := failingStage(t)
	js := runValidateStage(t, ctx, bus, r, handler)
	// Every record settles: four added (flaky after its retry), broken errored by its hook.
	var outcomes map[string]harvest.Outcome
	var twice []string
	require.Eventually(t, func() bool {
		outcomes, twice = settledOutcomes(js, jobID)
		return len(outcomes) == len(ids)
	}, 2*time.Minute, 20*time.Millisecond, "every record settles")
	require.Empty(t, twice, "records settled twice")
	for _, id := range ids {
		want := harvest.OutcomeAdded
		if id == "broken" {
			want = harvest.OutcomeErrored
		}
		require.Equal(t, want, outcomes[id], "record %s", id)
	}

	got := calls()
	require.Equal(t, ids, got[0], "the queued records come in one batch")
	retried := got[1:]
	for _, c := range retried {
		require.Len(t, c, 1, "a failed record is retried alone: %v", retried)
	}
	count := func(id string) int {
		return len(slices.DeleteFunc(slices.Clone(retried), func(c []string) bool { return c[0] != id }))
	}
	require.Equal(t, 1, count("flaky"), "flaky: one retry, which succeeds")
	require.Equal(t, 2, count("broken"), "broken: MaxRetries retries, then given up")

	requireFailedOnly(t, js, "broken")
	requireAllAcked(t, js)
}

// queueRecords publishes a record message of each of ids, of job jobID, to the VALIDATE subject.
func queueRecords(t *testing.T, bus *router.Bus, jobID string, ids []string) {
	t.Helper()
	for _, id := range ids {
		m, err := harvest.RecordMessage(harvest.SubjectValidate, &harvest.Record{JobID: jobID, Identifier: id})
		require.NoError(t, err)
		require.NoError(t, bus.Publisher().Publish(harvest.SubjectValidate, m))
	}
}

// runValidateStage runs r with handler as the VALIDATE stage (8 at once, settleErrored its
// give-up hook) until the test ends, and returns a JetStream client of bus.
func runValidateStage(t *testing.T, ctx context.Context, bus *router.Bus, r *router.Router,
	handler harvest.BatchHandler) jetstream.JetStream {
	t.Helper()
	require.NoError(t, r.AddStage(router.Stage{Name: "validate", Subject: harvest.SubjectValidate,
		Handler: handler, Concurrency: 8, MaxPending: 8,
		GiveUp: settleErrored}))
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() { require.NoError(t, r.Close()); <-done })
	<-r.Running()
	js, err := jetstream.New(bus.Conn())
	require.NoError(t, err)
	return js
}

// settleErrored is a give-up hook that settles the record as errored.
func settleErrored(msg *harvest.Message, _ error) ([]*harvest.Message, error) {
	var rec harvest.Record
	if err := harvest.Decode(msg, &rec); err != nil {
		return nil, err
	}
	return harvest.Settle(harvest.SettleRecord(&rec, harvest.OutcomeErrored))
}

// failingStage is a stage that settles each record as added, but for "broken", which always
// fails, and "flaky", which fails the first time; calls returns the identifiers of each call.
func failingStage(t *testing.T) (handler harvest.BatchHandler, calls func() [][]string) {
	var mu sync.Mutex
	var got [][]string
	flakyTries := 0
	handler = func(_ context.Context, batch []*harvest.Message) []harvest.Result {
		mu.Lock()
		defer mu.Unlock()
		var ids []string
		res := make([]harvest.Result, len(batch))
		for i, m := range batch {
			var rec harvest.Record
			require.NoError(t, harvest.Decode(m, &rec))
			ids = append(ids, rec.Identifier)
			switch {
			case rec.Identifier == "broken":
				res[i].Err = errors.New("broken for good")
			case rec.Identifier == "flaky" && flakyTries == 0:
				flakyTries++
				res[i].Err = errors.New("flaky once")
			default:
				res[i].Out, res[i].Err = harvest.Settle(harvest.SettleRecord(&rec, harvest.OutcomeAdded))
			}
		}
		got = append(got, ids)
		return res
	}
	return handler, func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// requireFailedOnly checks that the validate stage's failed subject holds one message, of identifier.
func requireFailedOnly(t *testing.T, js jetstream.JetStream, identifier string) {
	t.Helper()
	ctx := context.Background()
	failed, err := js.Stream(ctx, router.StreamFailed)
	require.NoError(t, err)
	last, err := failed.GetLastMsgForSubject(ctx, harvest.SubjectFailedPrefix+"validate")
	require.NoError(t, err)
	require.Equal(t, identifier, last.Header.Get(harvest.MetaIdentifier))
	info, err := failed.Info(ctx, jetstream.WithSubjectFilter(harvest.SubjectFailedPrefix+"validate"))
	require.NoError(t, err)
	require.Equal(t, uint64(1), info.State.Subjects[harvest.SubjectFailedPrefix+"validate"], "only %s is kept as failed", identifier)
}

// requireAllAcked waits until the validate stage's consumer has nothing pending or unacked,
// and checks that it redelivered nothing.
func requireAllAcked(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	ctx := context.Background()
	cons, err := js.Consumer(ctx, router.StreamWork, "harvest-validate")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		ci, err := cons.Info(ctx)
		return err == nil && ci.NumAckPending == 0 && ci.NumPending == 0
	}, time.Minute, 20*time.Millisecond, "every message acked")
	ci, err := cons.Info(ctx)
	require.NoError(t, err)
	require.Zero(t, ci.NumRedelivered, "no message redelivered")
}

// settledOutcomes reads every outcome of job jobID on the settled stream, by identifier, and
// the identifiers settled more than once.
func settledOutcomes(js jetstream.JetStream, jobID string) (map[string]harvest.Outcome, []string) {
	ctx := context.Background()
	out := map[string]harvest.Outcome{}
	var twice []string
	stream, err := js.Stream(ctx, router.StreamSettled)
	if err != nil {
		return out, nil
	}
	info, err := stream.Info(ctx)
	if err != nil {
		return out, nil
	}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && seq > 0; seq++ {
		raw, err := stream.GetMsg(ctx, seq)
		if err != nil {
			continue
		}
		var s harvest.Settled
		if harvest.Decode(harvest.NewRawMessage("", raw.Data), &s) == nil && s.JobID == jobID {
			if _, seen := out[s.Identifier]; seen {
				twice = append(twice, s.Identifier)
			}
			out[s.Identifier] = s.Outcome
		}
	}
	return out, twice
}

// errDown is the error of a stage whose database is away.
var errDown = errors.New("database restarting")

// TestRetriesWaitForAnUnavailableService: a record whose stage fails because its database is
// away (Config.Unavailable) is retried past MaxRetries until the database is back, and settles
// as its stage says, not given up; a record failing for another reason is given up after
// MaxRetries as before.
func TestRetriesWaitForAnUnavailableService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bus := testBus(t)
	const jobID = "00000000-0000-0000-0000-0000000000b8"
	ids := []string{"away", "broken"}
	queueRecords(t, bus, jobID, ids)
	r, err := router.New(bus, router.Config{Logger: slog.New(slog.DiscardHandler), Registerer: prometheus.NewRegistry(),
		MaxRetries: 2, RetryInterval: time.Millisecond, BatchSize: 8, BatchLinger: time.Second,
		Unavailable: func(err error) bool { return errors.Is(err, errDown) }})
	require.NoError(t, err)
	var mu sync.Mutex
	tries := map[string]int{}
	const awayTries = 8 // four times MaxRetries
	handler := func(_ context.Context, batch []*harvest.Message) []harvest.Result {
		mu.Lock()
		defer mu.Unlock()
		res := make([]harvest.Result, len(batch))
		for i, m := range batch {
			var rec harvest.Record
			require.NoError(t, harvest.Decode(m, &rec))
			tries[rec.Identifier]++
			switch {
			case rec.Identifier == "broken":
				res[i].Err = errors.New("broken for good")
			case tries[rec.Identifier] <= awayTries:
				res[i].Err = fmt.Errorf("upsert dataset: %w", errDown)
			default:
				res[i].Out, res[i].Err = harvest.Settle(harvest.SettleRecord(&rec, harvest.OutcomeAdded))
			}
		}
		return res
	}
	js := runValidateStage(t, ctx, bus, r, handler)
	var outcomes map[string]harvest.Outcome
	require.Eventually(t, func() bool {
		outcomes, _ = settledOutcomes(js, jobID)
		return len(outcomes) == len(ids)
	}, 2*time.Minute, 20*time.Millisecond, "every record settles")
	require.Equal(t, harvest.OutcomeAdded, outcomes["away"], "the record waited for its database")
	require.Equal(t, harvest.OutcomeErrored, outcomes["broken"])
	mu.Lock()
	require.Equal(t, awayTries+1, tries["away"])
	require.Equal(t, 3, tries["broken"], "broken: once, then MaxRetries retries")
	mu.Unlock()
	requireFailedOnly(t, js, "broken")
}
