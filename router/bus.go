package router

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/harvester-dev/harvester/harvest"
)

// Bus is a connection to NATS JetStream with Harvester's streams in place and a routing
// Publisher: what a process needs to send work without running stages (the scheduler, the
// API, the one-shot CLI).
type Bus struct {
	nc  *nats.Conn
	js  jetstream.JetStream
	pub *Publisher
	// replicas is how many servers keep each stream, consumer and the object store bucket.
	replicas int
}

// ConnectOption is an option of Connect.
type ConnectOption func(*Bus)

// WithStreamReplicas makes Connect create (or scale) the streams, the object store bucket of
// bodies sent by reference and the stages' durable consumers with n replicas each (1 to
// MaxStreamReplicas; default 1). More than 1 needs a JetStream cluster of at least n servers;
// with 3, a stream and its consumers keep working while one server is down (a quorum of 2 of
// 3 stays) and lose no acknowledged message when a server is killed. Every process of an
// installation must use the same n, or each scales the streams to its own.
func WithStreamReplicas(n int) ConnectOption { return func(b *Bus) { b.replicas = n } }

// Connect connects to the NATS server at url and creates or updates the streams. url may list
// several servers of one cluster, comma-separated (nats://a:4222,nats://b:4222): the client
// connects to one and moves to another when it goes away, so list them all. It returns an
// error naming url when no server can be reached, one has no JetStream, or the streams cannot
// be made with the replicas asked for (a cluster with fewer servers).
func Connect(ctx context.Context, url string, opts ...ConnectOption) (*Bus, error) {
	b := &Bus{replicas: 1}
	for _, o := range opts {
		o(b)
	}
	if b.replicas < 1 || b.replicas > MaxStreamReplicas {
		return nil, fmt.Errorf("stream replicas %d: want 1 to %d", b.replicas, MaxStreamReplicas)
	}
	nc, err := nats.Connect(url, nats.Name("harvester"), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", url, err)
	}
	js, err := jetstream.New(nc)
	if err == nil {
		err = whileUnavailable(ctx, nc, func(ctx context.Context) error { return EnsureStreams(ctx, js, b.replicas) })
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("NATS at %s: %w", url, err)
	}
	b.nc, b.js, b.pub = nc, js, NewPublisher(js)
	b.pub.setReplicas(b.replicas)
	return b, nil
}

// Replicas is how many servers keep each of the bus's streams and consumers.
func (b *Bus) Replicas() int { return b.replicas }

// Publisher returns the routing publisher.
func (b *Bus) Publisher() *Publisher { return b.pub }

// Conn returns the NATS connection.
func (b *Bus) Conn() *nats.Conn { return b.nc }

// Ping checks that the server and JetStream answer, within 2 seconds: the readiness check.
func (b *Bus) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := b.js.AccountInfo(ctx); err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	return nil
}

// StreamsReady says whether the streams can take messages now: nil once the connection is up
// and every stream (and the object store bucket) answers, after creating again those the
// broker lost (a nats-server restarted with its store wiped: recreateStreams); else why not.
// The scheduler asks it before it re-drives an orphaned job (scheduler.Config.BusReady).
func (b *Bus) StreamsReady(ctx context.Context) error {
	if !b.nc.IsConnected() {
		return fmt.Errorf("not connected to NATS (status %s)", b.nc.Status())
	}
	if err := recreateStreams(ctx, b.js, b.replicas); err != nil {
		return fmt.Errorf("streams: %w", err)
	}
	return nil
}

// Close closes the connection.
func (b *Bus) Close() { b.nc.Close() }

// NewDeferredPublisher returns a DeferredPublisher on the bus's connection, for a stage that
// publishes from inside its handler (Stage.Deferred).
func (b *Bus) NewDeferredPublisher() (*DeferredPublisher, error) {
	d, err := NewDeferredPublisher(b.nc)
	if err != nil {
		return nil, err
	}
	d.p.setReplicas(b.replicas)
	d.p.published = b.pub.published
	return d, nil
}

// OnReport calls f (on a goroutine of the connection's) for every harvest report event from
// now on, without reading it, until cancel is called: the signal that some job finished, in
// any process (the scheduler's Kick). Core NATS delivery: an event missed while disconnected
// is not replayed.
func (b *Bus) OnReport(f func()) (cancel func(), err error) {
	sub, err := b.nc.Subscribe(harvest.SubjectReport, func(*nats.Msg) { f() })
	if err != nil {
		return nil, fmt.Errorf("subscribe to reports: %w", err)
	}
	return func() { _ = sub.Unsubscribe() }, nil
}

// Reports subscribes to harvest report events from now on and returns them on a channel
// (buffered; events that find it full are dropped) until cancel is called. A report sent by
// reference (claim check: a job that names thousands of changed resources) is fetched from
// RecordBucket; one whose body cannot be read is dropped.
func (b *Bus) Reports() (reports <-chan *harvest.Report, cancel func(), err error) {
	ch := make(chan *harvest.Report, 64)
	sub, err := b.nc.Subscribe(harvest.SubjectReport, func(m *nats.Msg) {
		data, err := b.pub.claims.body(context.Background(), m.Header, m.Data)
		if err != nil {
			return
		}
		var rep harvest.Report
		if json.Unmarshal(data, &rep) != nil {
			return
		}
		select {
		case ch <- &rep:
		default:
		}
	})
	if err != nil {
		return nil, nil, fmt.Errorf("subscribe to reports: %w", err)
	}
	return ch, func() { _ = sub.Unsubscribe() }, nil
}
