package router

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// A puller delivers every message of its consumer in order across many requests, ends with
// ErrMsgIteratorClosed once stopped, and leaves nothing behind: its open request is gone, so a
// message published after Stop goes to the next puller on its first delivery, not after the
// consumer's AckWait.
func TestPuller(t *testing.T) {
	ctx := context.Background()
	e, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(e.Shutdown)
	nc, err := nats.Connect(e.URL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "PULLER", Subjects: []string{"puller.>"}})
	require.NoError(t, err)
	c, err := js.CreateOrUpdateConsumer(ctx, "PULLER", jetstream.ConsumerConfig{Durable: "p",
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: 2 * time.Second})
	require.NoError(t, err)

	const n = 150 // more than two requests of 64
	for i := range n {
		_, err := js.Publish(ctx, "puller.x", fmt.Appendf(nil, "%d", i))
		require.NoError(t, err)
	}
	// Requests that would stay open for 10 minutes: only Stop can withdraw one in this test.
	p := newPuller(c, 64, 10*time.Minute, time.Second)
	for i := range n {
		msg, err := p.Next()
		require.NoError(t, err)
		require.Equal(t, fmt.Sprint(i), string(msg.Data()))
		require.NoError(t, msg.Ack())
	}
	waiting := make(chan error, 1)
	go func() { _, err := p.Next(); waiting <- err }() // waits on an open request
	p.Stop()
	require.ErrorIs(t, <-waiting, jetstream.ErrMsgIteratorClosed)
	_, err = p.Next()
	require.ErrorIs(t, err, jetstream.ErrMsgIteratorClosed)
	p.Stop() // again: harmless

	// The stopped puller's request no longer takes messages (it would hold this one until
	// AckWait and the next puller would get it as its second delivery).
	require.Eventually(t, func() bool {
		info, err := c.Info(ctx)
		return err == nil && info.NumWaiting == 0
	}, 5*time.Minute, 10*time.Millisecond, "the stopped puller's request is withdrawn")
	_, err = js.Publish(ctx, "puller.x", []byte("after"))
	require.NoError(t, err)
	next := newPuller(c, 64, 10*time.Second, time.Second)
	t.Cleanup(next.Stop)
	msg, err := next.Next()
	require.NoError(t, err)
	require.Equal(t, "after", string(msg.Data()))
	meta, err := msg.Metadata()
	require.NoError(t, err)
	require.Equal(t, uint64(1), meta.NumDelivered, "first delivery")
}
