package router_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
)

// connect opens a bus on url with opts, closed when the test ends.
func connect(t *testing.T, url string, opts ...router.ConnectOption) *router.Bus {
	t.Helper()
	bus, err := router.Connect(context.Background(), url, opts...)
	require.NoError(t, err)
	t.Cleanup(bus.Close)
	return bus
}

// jsOf is a JetStream context on bus's connection, to look at the server's names.
func jsOf(t *testing.T, bus *router.Bus) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(bus.Conn())
	require.NoError(t, err)
	return js
}

// stamps is the StampKey metadata of every stream of the default deployment, by name.
func stamps(t *testing.T, js jetstream.JetStream) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range []string{router.StreamWork, router.StreamSettled, router.StreamFailed, router.StreamReport,
		router.StreamTrigger, router.StreamCheck} {
		s, err := js.Stream(context.Background(), name)
		require.NoError(t, err, name)
		out[name] = s.CachedInfo().Config.Metadata[router.StampKey]
	}
	return out
}

// collectStage runs a router on bus with one stage, validate, that sends the identifier of each
// message it gets on the returned channel.
func collectStage(t *testing.T, bus *router.Bus) <-chan string {
	t.Helper()
	got := make(chan string, 100)
	r, err := router.New(bus, router.Config{Logger: slog.New(slog.DiscardHandler), Registerer: prometheus.NewRegistry()})
	require.NoError(t, err)
	require.NoError(t, r.AddStage(router.Stage{Name: harvest.StageValidate, Subject: harvest.SubjectValidate,
		Handler: harvest.Each(func(msg *harvest.Message) ([]*harvest.Message, error) {
			got <- msg.Metadata.Get(harvest.MetaIdentifier)
			return nil, nil
		})}))
	runRouter(t, r)
	return got
}

// runRouter runs r until the test ends.
func runRouter(t *testing.T, r *router.Router) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	<-r.Running()
	t.Cleanup(func() { cancel(); _ = r.Close(); <-done })
}

// identified is a message to subject whose identifier is id.
func identified(subject, id string) *harvest.Message {
	m := harvest.NewRawMessage("", []byte(`{}`))
	m.Metadata.Set(harvest.MetaSubject, subject)
	m.Metadata.Set(harvest.MetaIdentifier, id)
	return m
}

// receive takes n identifiers from got, failing the test after a minute.
func receive(t *testing.T, got <-chan string, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		select {
		case id := <-got:
			ids = append(ids, id)
		case <-time.After(time.Minute):
			t.Fatalf("got %v, want %d messages", ids, n)
		}
	}
	return ids
}

// Two deployments on one NATS server, one with the default prefix and one with "staging":
// each has its own streams, consumers, subjects and bucket under the documented names, the
// default's names are those from before prefixes, and each stage and each report subscriber
// gets its own deployment's messages only.
func TestPrefixSeparatesDeployments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := natstest.URL(t)
	def := connect(t, url)
	stg := connect(t, url, router.WithPrefix("staging"))
	require.Equal(t, router.DefaultPrefix, def.Prefix())
	require.Equal(t, "staging", stg.Prefix())
	require.Equal(t, "harvest.v1.trigger", def.Subject(harvest.SubjectTrigger))
	require.Equal(t, "staging.harvest.v1.trigger", stg.Subject(harvest.SubjectTrigger))

	js := jsOf(t, def)
	work, err := js.Stream(ctx, "HARVEST_WORK")
	require.NoError(t, err)
	require.Contains(t, work.CachedInfo().Config.Subjects, "harvest.v1.extract")
	stgWork, err := js.Stream(ctx, "staging_HARVEST_WORK")
	require.NoError(t, err)
	require.Contains(t, stgWork.CachedInfo().Config.Subjects, "staging.harvest.v1.extract")
	for _, base := range []string{"HARVEST_SETTLED", "HARVEST_FAILED", "HARVEST_REPORT", "HARVEST_TRIGGER"} {
		_, err := js.Stream(ctx, "staging_"+base)
		require.NoError(t, err, base)
	}
	_, err = js.ObjectStore(ctx, "harvest-records")
	require.NoError(t, err)
	_, err = js.ObjectStore(ctx, "staging-harvest-records")
	require.NoError(t, err)

	defGot, stgGot := collectStage(t, def), collectStage(t, stg)
	_, err = js.Consumer(ctx, "HARVEST_WORK", "harvest-validate")
	require.NoError(t, err)
	_, err = js.Consumer(ctx, "staging_HARVEST_WORK", "staging-harvest-validate")
	require.NoError(t, err)
	for i := range 4 {
		require.NoError(t, def.Publisher().Publish("", identified(harvest.SubjectValidate, fmt.Sprint("default-", i))))
		require.NoError(t, stg.Publisher().Publish("", identified(harvest.SubjectValidate, fmt.Sprint("staging-", i))))
	}
	require.ElementsMatch(t, []string{"default-0", "default-1", "default-2", "default-3"}, receive(t, defGot, 4))
	require.ElementsMatch(t, []string{"staging-0", "staging-1", "staging-2", "staging-3"}, receive(t, stgGot, 4))

	defReports, cancelDef, err := def.Reports()
	require.NoError(t, err)
	defer cancelDef()
	stgReports, cancelStg, err := stg.Reports()
	require.NoError(t, err)
	defer cancelStg()
	report := func(bus *router.Bus, jobID string) {
		m, err := harvest.NewMessage(harvest.SubjectReport, &harvest.Report{JobID: jobID})
		require.NoError(t, err)
		require.NoError(t, bus.Publisher().Publish("", m))
	}
	next := func(ch <-chan *harvest.Report) string {
		select {
		case r := <-ch:
			return r.JobID
		case <-time.After(time.Minute):
			t.Fatal("no report within a minute")
			return ""
		}
	}
	report(stg, "staging-job")
	require.Equal(t, "staging-job", next(stgReports))
	report(def, "default-job")
	require.Equal(t, "default-job", next(defReports), "the default deployment never sees staging's report")
}

// A prefix that is not a name (upper case, a subject token separator or wildcard, too long,
// empty) is refused before anything is made on the server, with an error saying what a prefix
// may be.
func TestPrefixChecked(t *testing.T) {
	t.Parallel()
	url := natstest.URL(t)
	for _, p := range []string{"Staging", "a.b", "a*", "a>", "", "-a", "_a", "a b", "abcdefghijklmnopqrstuvwxyz0123456"} {
		_, err := router.Connect(context.Background(), url, router.WithPrefix(p))
		require.ErrorContains(t, err, "lower-case letters, digits", "prefix %q", p)
	}
	for _, p := range []string{router.DefaultPrefix, "staging", "0", "harvest", "a_b-c", "abcdefghijklmnopqrstuvwxyz012345"} {
		require.NoError(t, router.CheckPrefix(p), p)
	}
	connect(t, url, router.WithPrefix("harvest")) // its subjects harvest.harvest.v1.* overlap none of the default's
	connect(t, url)
}

// Streams are stamped with the deployment's database; a process of another database on the
// same prefix is refused with a sentence naming both databases and the fix, one on another
// prefix is not, and another process of the first database is welcome.
func TestStampRefusesAnotherDatabase(t *testing.T) {
	t.Parallel()
	url := natstest.URL(t)
	a := connect(t, url, router.WithDatabaseID("db-a"))
	for name, stamp := range stamps(t, jsOf(t, a)) {
		require.Equal(t, "db-a", stamp, name)
	}
	_, err := router.Connect(context.Background(), url, router.WithDatabaseID("db-b"))
	require.ErrorIs(t, err, router.ErrOtherDeployment)
	for _, want := range []string{"stamped with database db-a", "this process's database is db-b", `"harvester"`, "--nats-prefix"} {
		require.ErrorContains(t, err, want)
	}
	connect(t, url, router.WithDatabaseID("db-b"), router.WithPrefix("staging"))
	connect(t, url, router.WithDatabaseID("db-a"))
	connect(t, url) // a process that knows no database checks nothing, and leaves the stamp
	for name, stamp := range stamps(t, jsOf(t, a)) {
		require.Equal(t, "db-a", stamp, name)
	}
}

// Two processes of different databases that start at once on a new server: one makes the
// streams, the other is refused, however their requests interleave.
func TestStampRefusesAnotherDatabaseStartingAtOnce(t *testing.T) {
	t.Parallel()
	for range 3 {
		url := natstest.URL(t)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, id := range []string{"db-a", "db-b"} {
			wg.Go(func() {
				bus, err := router.Connect(context.Background(), url, router.WithDatabaseID(id))
				if err == nil {
					bus.Close()
				}
				errs[i] = err
			})
		}
		wg.Wait()
		require.True(t, (errs[0] == nil) != (errs[1] == nil), "exactly one is refused: %v", errs)
		require.ErrorIs(t, errors.Join(errs...), router.ErrOtherDeployment)
	}
}

// Streams made before stamps (by a process that knew no database, as every Harvester before
// this one) are adopted: stamped, with the messages they hold; from then on another database is
// refused.
func TestStampAdoptsStreamsFromBefore(t *testing.T) {
	t.Parallel()
	url := natstest.URL(t)
	old := connect(t, url)
	require.NoError(t, old.Publisher().Publish("", identified(harvest.SubjectExtract, "in flight")))
	for name, stamp := range stamps(t, jsOf(t, old)) {
		require.Empty(t, stamp, name)
	}
	upgraded := connect(t, url, router.WithDatabaseID("db-a"))
	js := jsOf(t, upgraded)
	for name, stamp := range stamps(t, js) {
		require.Equal(t, "db-a", stamp, name)
	}
	work, err := js.Stream(context.Background(), router.StreamWork)
	require.NoError(t, err)
	require.Equal(t, uint64(1), work.CachedInfo().State.Msgs, "the message in flight is kept")
	_, err = router.Connect(context.Background(), url, router.WithDatabaseID("db-b"))
	require.ErrorIs(t, err, router.ErrOtherDeployment)
}

// syncBuffer is a bytes.Buffer that log handlers may write from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A message whose stage finds no such job (harvest.UnknownJob) is counted by stage, logged with
// the job id, the stage and the prefix, and acked: not retried, not given up on, not
// redelivered.
func TestUnknownJobCountedLoggedAcked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bus := connect(t, natstest.URL(t), router.WithPrefix("staging"))
	reg := prometheus.NewRegistry()
	var logs syncBuffer
	r, err := router.New(bus, router.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Registerer: reg,
		RetryInterval: time.Millisecond})
	require.NoError(t, err)
	calls := make(chan string, 10)
	require.NoError(t, r.AddStage(router.Stage{Name: harvest.StageSync, Subject: harvest.SubjectSync,
		Handler: harvest.Each(func(msg *harvest.Message) ([]*harvest.Message, error) {
			calls <- msg.Metadata.Get(harvest.MetaIdentifier)
			return nil, fmt.Errorf("sync: %w", harvest.UnknownJob("job-elsewhere"))
		})}))
	runRouter(t, r)
	const name = "harvester_messages_unknown_job_total"
	require.Equal(t, 0.0, metricValue(t, reg, name, "stage", harvest.StageSync), "the series exists at 0")
	require.NoError(t, bus.Publisher().Publish("", identified(harvest.SubjectSync, "rec-1")))
	require.Eventually(t, func() bool { return metricValue(t, reg, name, "stage", harvest.StageSync) == 1 },
		time.Minute, 10*time.Millisecond)
	js := jsOf(t, bus)
	require.Eventually(t, func() bool {
		c, err := js.Consumer(ctx, "staging_HARVEST_WORK", "staging-harvest-sync")
		require.NoError(t, err)
		info, err := c.Info(ctx)
		require.NoError(t, err)
		return info.NumAckPending == 0 && info.NumPending == 0
	}, time.Minute, 10*time.Millisecond, "acked")
	require.Len(t, calls, 1, "handled once: no retry, no redelivery")
	require.Equal(t, 0.0, metricValue(t, reg, "harvester_stage_gave_up_total", "stage", harvest.StageSync))
	require.Equal(t, 0.0, metricValue(t, reg, "harvester_stage_handler_errors_total", "stage", harvest.StageSync))
	line := logs.String()
	for _, want := range []string{"level=WARN", "stage=sync", "job_id=job-elsewhere", "nats_prefix=staging"} {
		require.Contains(t, line, want)
	}
}
