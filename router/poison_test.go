package router_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
)

// TestGiveUpKeepsTheMessageAndCallsTheStageHook: a message whose handler keeps failing goes
// to harvest.v1.failed.<stage> with its reason, after the retries, and what the stage's
// give-up hook returns is published.
func TestGiveUpKeepsTheMessageAndCallsTheStageHook(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bus := testBus(t)
	r, err := router.New(bus, router.Config{Logger: slog.New(slog.DiscardHandler), Registerer: prometheus.NewRegistry(),
		MaxRetries: 2, RetryInterval: time.Millisecond})
	require.NoError(t, err)
	attempts := 0
	hooked := make(chan error, 1)
	require.NoError(t, r.AddStage(router.Stage{Name: "validate", Subject: harvest.SubjectValidate,
		Handler: harvest.Each(func(*harvest.Message) ([]*harvest.Message, error) {
			attempts++
			return nil, errors.New("schema store unreachable")
		}),
		GiveUp: func(msg *harvest.Message, cause error) ([]*harvest.Message, error) {
			hooked <- cause
			return harvest.Settle(&harvest.Settled{Kind: harvest.SettledFailed, JobID: "job-1"})
		}}))
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() { require.NoError(t, r.Close()); <-done })
	<-r.Running()

	m, err := harvest.RecordMessage(harvest.SubjectValidate, &harvest.Record{JobID: "job-1", Identifier: "ds-1"})
	require.NoError(t, err)
	require.NoError(t, bus.Publisher().Publish(harvest.SubjectValidate, m))
	require.ErrorContains(t, <-hooked, "schema store unreachable")
	require.Equal(t, 3, attempts, "the first try and MaxRetries retries")

	js, err := jetstream.New(bus.Conn())
	require.NoError(t, err)
	failed, err := js.Stream(ctx, router.StreamFailed)
	require.NoError(t, err)
	last, err := failed.GetLastMsgForSubject(ctx, harvest.SubjectFailedPrefix+"validate")
	require.NoError(t, err)
	require.Contains(t, last.Header.Get(harvest.MetaReason), "schema store unreachable")
	settled, err := js.Stream(ctx, router.StreamSettled)
	require.NoError(t, err)
	// The hook's output is published after the hook returned: wait for it.
	var out *jetstream.RawStreamMsg
	require.Eventually(t, func() bool {
		out, err = settled.GetLastMsgForSubject(ctx, harvest.SubjectSettled)
		return err == nil
	}, 30*time.Second, 10*time.Millisecond, "the hook's output is published")
	require.Contains(t, string(out.Data), `"kind":"failed"`)
}
