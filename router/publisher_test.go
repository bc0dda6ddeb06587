package router

import (
	"context"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// startBus starts an in-process nats-server with Harvester's streams and connects to it.
func startBus(t testing.TB) *Bus {
	t.Helper()
	e, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(e.Shutdown)
	bus, err := Connect(context.Background(), e.URL())
	require.NoError(t, err)
	t.Cleanup(bus.Close)
	return bus
}

func streamMsgs(t testing.TB, bus *Bus, stream, subject string) uint64 {
	t.Helper()
	s, err := bus.js.Stream(context.Background(), stream)
	require.NoError(t, err)
	info, err := s.Info(context.Background(), jetstream.WithSubjectFilter(subject))
	require.NoError(t, err)
	return info.State.Msgs
}

func routed(subject string, i int) *harvest.Message {
	m := harvest.NewRawMessage("", fmt.Appendf(nil, `{"n":%d}`, i))
	m.Metadata.Set(harvest.MetaSubject, subject)
	return m
}

// A handler that publishes through a DeferredPublisher returns only once JetStream has stored
// every message it published, however many went out without waiting.
func TestDeferredPublisherFlushesBeforeTheHandlerReturns(t *testing.T) {
	t.Parallel()
	bus := startBus(t)
	pub, err := NewDeferredPublisher(bus.Conn())
	require.NoError(t, err)
	const n = 3*flushWindow + 7
	h := flushed(pub, func(*harvest.Message) ([]*harvest.Message, error) {
		for i := range n {
			if err := pub.Publish("", routed(harvest.SubjectCompare, i)); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	_, err = h(harvest.NewRawMessage("in", nil))
	require.NoError(t, err)
	require.Zero(t, pub.js.PublishAsyncPending())
	require.Equal(t, uint64(n), streamMsgs(t, bus, StreamWork, harvest.SubjectCompare))
}

// A message JetStream does not store (no stream takes its subject) fails the handler that
// published it, even though Publish itself returned nil: its input must not be acked.
func TestDeferredPublisherFailsTheHandlerWhenAMessageIsNotStored(t *testing.T) {
	t.Parallel()
	bus := startBus(t)
	pub, err := NewDeferredPublisher(bus.Conn())
	require.NoError(t, err)
	h := flushed(pub, func(*harvest.Message) ([]*harvest.Message, error) {
		if err := pub.Publish("", routed(harvest.SubjectCompare, 1)); err != nil {
			return nil, err
		}
		return nil, pub.Publish("", routed("harvest.v1.nowhere", 2))
	})
	_, err = h(harvest.NewRawMessage("in", nil))
	require.ErrorContains(t, err, "harvest.v1.nowhere")

	// The next handler, whose messages are all stored, succeeds.
	ok := flushed(pub, func(*harvest.Message) ([]*harvest.Message, error) {
		return nil, pub.Publish("", routed(harvest.SubjectCompare, 3))
	})
	_, err = ok(harvest.NewRawMessage("in2", nil))
	require.NoError(t, err)
}

// Publishing several messages at once waits for all their PubAcks and names a subject no
// stream stores.
func TestPublisherBatchReportsAMessageNotStored(t *testing.T) {
	t.Parallel()
	bus := startBus(t)
	msgs := []*harvest.Message{routed(harvest.SubjectSync, 1), routed(harvest.SubjectSync, 2), routed(harvest.SubjectSync, 3)}
	require.NoError(t, bus.Publisher().Publish("", msgs...))
	require.Equal(t, uint64(3), streamMsgs(t, bus, StreamWork, harvest.SubjectSync))
	err := bus.Publisher().Publish("", routed(harvest.SubjectSync, 4), routed("harvest.v1.nowhere", 5))
	require.ErrorContains(t, err, "harvest.v1.nowhere")
}

// BenchmarkPublishOneAtATime is how EXTRACT sends a listing's records: one Publish per record,
// with the routing Publisher (waits for each PubAck) and with the DeferredPublisher (waits
// once per flushWindow, and at the end).
func BenchmarkPublishOneAtATime(b *testing.B) {
	body := make([]byte, 1800)
	for _, tc := range []struct {
		name string
		pub  func(*Bus) (harvest.Publisher, func() error)
	}{
		{"sync", func(bus *Bus) (harvest.Publisher, func() error) { return bus.Publisher(), func() error { return nil } }},
		{"deferred", func(bus *Bus) (harvest.Publisher, func() error) {
			d, err := NewDeferredPublisher(bus.Conn())
			require.NoError(b, err)
			return d, func() error { <-d.js.PublishAsyncComplete(); return nil }
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			bus := startBus(b)
			pub, flush := tc.pub(bus)
			b.ResetTimer()
			for i := range b.N {
				m := harvest.NewRawMessage("", body)
				m.Metadata.Set(harvest.MetaSubject, harvest.SubjectCompare)
				if err := pub.Publish("", m); err != nil {
					b.Fatal(i, err)
				}
			}
			require.NoError(b, flush())
		})
	}
}
