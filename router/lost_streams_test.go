package router

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// A broker that lost every stream and consumer (a nats-server restarted with its store wiped;
// here the streams are deleted under a running subscriber) gets them created again: the next
// publish succeeds and the subscriber receives it, without a restart of the process.
func TestLostStreamsAreCreatedAgain(t *testing.T) {
	ctx := context.Background()
	e, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(e.Shutdown)
	bus, err := Connect(ctx, e.URL())
	require.NoError(t, err)
	t.Cleanup(bus.Close)
	sub := newSubscriber(bus.js, StreamWork, jetstream.ConsumerConfig{Durable: "lost-streams",
		FilterSubject: harvest.SubjectExtract, AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second},
		1, 1, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { _ = sub.Close() })
	ch, err := sub.Subscribe(ctx, "")
	require.NoError(t, err)

	publish := func(id string) {
		t.Helper()
		m := message.NewMessage(id, []byte(`{}`))
		m.Metadata.Set(harvest.MetaSubject, harvest.SubjectExtract)
		require.NoError(t, bus.Publisher().Publish(harvest.SubjectExtract, m))
	}
	receive := func(id string) {
		t.Helper()
		select {
		case m := <-ch:
			require.Equal(t, id, m.UUID)
			m.Ack()
		case <-time.After(time.Minute):
			t.Fatalf("message %s never delivered", id)
		}
	}
	publish("before")
	receive("before")

	deleteStreams(t, bus)
	publish("after") // the subscriber or the publisher creates the streams again
	receive("after") // the subscriber finds its consumer gone and creates it again

	// With no subscriber left to notice, the publisher alone brings the streams back.
	require.NoError(t, sub.Close())
	deleteStreams(t, bus)
	publish("alone")
	info, err := bus.js.Stream(ctx, StreamWork)
	require.NoError(t, err)
	require.Equal(t, uint64(1), info.CachedInfo().State.Msgs)
}

// deleteStreams deletes every stream. One may be gone already: the subscriber can notice the
// first deletion and create the streams again while the others are being deleted.
func deleteStreams(t *testing.T, bus *Bus) {
	t.Helper()
	for _, cfg := range streamConfigs() {
		if err := bus.js.DeleteStream(context.Background(), cfg.Name); !errors.Is(err, jetstream.ErrStreamNotFound) {
			require.NoError(t, err)
		}
	}
}
