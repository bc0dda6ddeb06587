package router

import (
	"context"
	"testing"

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

	lag, err := bus.Lag(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]uint64{"sync": 2, "transform": 1}, lag.Failed)
	var found bool
	for _, c := range lag.Consumers {
		if c.Stream == StreamWork && c.Consumer == "validate" {
			found = true
			require.Equal(t, uint64(3), c.Pending)
			require.Zero(t, c.AckPending)
		}
	}
	require.True(t, found, "the durable consumer is listed: %+v", lag.Consumers)
}
