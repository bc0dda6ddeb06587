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
}

// Connect connects to the NATS server at url and creates or updates the streams. It returns
// an error naming url when the server cannot be reached or has no JetStream.
func Connect(ctx context.Context, url string) (*Bus, error) {
	nc, err := nats.Connect(url, nats.Name("harvester"), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", url, err)
	}
	js, err := jetstream.New(nc)
	if err == nil {
		err = EnsureStreams(ctx, js)
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("NATS at %s: %w", url, err)
	}
	return &Bus{nc: nc, js: js, pub: NewPublisher(js)}, nil
}

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

// Close closes the connection.
func (b *Bus) Close() { b.nc.Close() }

// NewDeferredPublisher returns a DeferredPublisher on the bus's connection, for a stage that
// publishes from inside its handler (Stage.Deferred).
func (b *Bus) NewDeferredPublisher() (*DeferredPublisher, error) { return NewDeferredPublisher(b.nc) }

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
