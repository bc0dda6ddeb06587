package router

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// Lag reports each durable consumer's backlog and the failed records kept per stage.
func TestLagCountsPendingAndFailed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bus := startBus(t)
	require.NoError(t, ensureStreams(ctx, bus.js, bus.dep))
	stream, err := bus.js.Stream(ctx, StreamWork)
	require.NoError(t, err)
	_, err = stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "validate",
		FilterSubject: harvest.SubjectValidate, AckPolicy: jetstream.AckExplicitPolicy})
	require.NoError(t, err)
	for i := range 3 {
		require.NoError(t, bus.Publisher().Publish(harvest.SubjectValidate, routed(harvest.SubjectValidate, i)))
	}
	for i := range 2 {
		require.NoError(t, bus.Publisher().Publish(harvest.SubjectFailedPrefix+"sync", routed(harvest.SubjectFailedPrefix+"sync", i)))
	}
	require.NoError(t, bus.Publisher().Publish(harvest.SubjectFailedPrefix+"transform", routed(harvest.SubjectFailedPrefix+"transform", 9)))

	// A consumer's pending count is brought up to date by the server shortly after a publish
	// (under load, 0 or 1 of the 3 was seen): wait for it, a minute at most.
	var lag *Lag
	pending := func() (uint64, bool) {
		var err error
		lag, err = bus.Lag(ctx)
		require.NoError(t, err)
		for _, c := range lag.Consumers {
			if c.Stream == StreamWork && c.Consumer == "validate" {
				require.Zero(t, c.AckPending)
				return c.Pending, true
			}
		}
		return 0, false
	}
	deadline := time.Now().Add(time.Minute)
	for n, found := pending(); n != 3; n, found = pending() {
		require.True(t, found, "the durable consumer is listed: %+v", lag.Consumers)
		require.True(t, time.Now().Before(deadline), "pending %d, want 3", n)
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, map[string]uint64{"sync": 2, "transform": 1}, lag.Failed)
}
