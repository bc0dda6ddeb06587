package router

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// wipeableServer is an in-process nats-server on a fixed loopback port that can be restarted
// with its JetStream store wiped: every stream and consumer gone, as after an OS crash that lost
// what JetStream had not synced, while clients reconnect to the same address.
type wipeableServer struct {
	t    *testing.T
	port int
	dir  string
	srv  *server.Server
}

func startWipeable(t *testing.T) *wipeableServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	w := &wipeableServer{t: t, port: port, dir: t.TempDir()}
	w.start()
	t.Cleanup(func() { w.srv.Shutdown(); w.srv.WaitForShutdown() })
	return w
}

func (w *wipeableServer) start() {
	w.t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: w.port, JetStream: true,
		StoreDir: w.dir, NoLog: true, NoSigs: true})
	require.NoError(w.t, err)
	go s.Start()
	require.True(w.t, s.ReadyForConnections(5*time.Minute), "nats-server did not start")
	w.srv = s
}

func (w *wipeableServer) URL() string { return w.srv.ClientURL() }

// wipe stops the server, deletes its store and starts it again on the same port.
func (w *wipeableServer) wipe() {
	w.t.Helper()
	w.srv.Shutdown()
	w.srv.WaitForShutdown()
	require.NoError(w.t, os.RemoveAll(w.dir))
	w.start()
}

// A broker that lost every stream and consumer (a nats-server restarted with its store wiped)
// gets them created again: the next publish succeeds and the subscriber receives it, without a
// restart of the process.
func TestLostStreamsAreCreatedAgain(t *testing.T) {
	ctx := context.Background()
	srv := startWipeable(t)
	bus, err := Connect(ctx, srv.URL())
	require.NoError(t, err)
	t.Cleanup(bus.Close)
	sub := newSubscriber(bus.js, bus.dep, StreamWork, jetstream.ConsumerConfig{Durable: "lost-streams",
		FilterSubject: harvest.SubjectExtract, AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second},
		1, 1, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { _ = sub.Close() })
	ch, err := sub.Subscribe(ctx, "")
	require.NoError(t, err)

	// While the client reconnects to the restarted server, and while the streams are being
	// created again, a publish can fail (each JetStream request waits 5 s by default): a
	// handler's publish is retried by the router's retry middleware, so this one is retried
	// too, until it succeeds or the test runs out of time. The wait follows the work.
	publish := func(id string) {
		t.Helper()
		var err error
		for attempt := 1; ; attempt++ {
			m := harvest.NewRawMessage(id, []byte(`{}`))
			m.Metadata.Set(harvest.MetaSubject, harvest.SubjectExtract)
			if err = bus.Publisher().Publish(harvest.SubjectExtract, m); err == nil {
				return
			}
			if dl, ok := t.Deadline(); attempt >= 120 || (ok && time.Until(dl) < time.Minute) {
				break
			}
			t.Logf("publish %s, attempt %d: %v; retrying", id, attempt, err)
			time.Sleep(100 * time.Millisecond)
		}
		require.NoError(t, err, "publish %s", id)
	}
	receive := func(id string) {
		t.Helper()
		for {
			select {
			case m := <-ch:
				m.Ack()
				if m.UUID == id {
					return
				}
				// A retried publish whose first attempt was stored after all arrives twice.
				require.Contains(t, []string{"before", "after"}, m.UUID)
			case <-time.After(5 * time.Minute): // a failsafe: delivery is waited for, not timed
				t.Fatalf("message %s never delivered", id)
			}
		}
	}
	publish("before")
	receive("before")

	srv.wipe()
	publish("after") // the subscriber or the publisher creates the streams again
	receive("after") // the subscriber finds its consumer gone and creates it again

	// With no subscriber left to notice, the publisher alone brings the streams back.
	require.NoError(t, sub.Close())
	srv.wipe()
	publish("alone")
	info, err := bus.js.Stream(ctx, StreamWork)
	require.NoError(t, err)
	// One message, or two when a retried publish's first attempt was stored after all.
	require.GreaterOrEqual(t, info.CachedInfo().State.Msgs, uint64(1))
}
