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

// Bus is a connection to NATS JetStream with one deployment's streams in place and a routing
// Publisher: what a process needs to send work without running stages (the scheduler, the
// API, the one-shot CLI).
type Bus struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	pub    *Publisher
	prefix string // as WithPrefix gave it; checked by Connect
	dep    deployment
}

// ConnectOption is an option of Connect.
type ConnectOption func(*Bus)

// WithStreamReplicas makes Connect create (or scale) the streams, the object store bucket of
// bodies sent by reference and the stages' durable consumers with n replicas each (1 to
// MaxStreamReplicas; default 1). More than 1 needs a JetStream cluster of at least n servers;
// with 3, a stream and its consumers keep working while one server is down (a quorum of 2 of
// 3 stays) and lose no acknowledged message when a server is killed. Every process of an
// installation must use the same n, or each scales the streams to its own.
func WithStreamReplicas(n int) ConnectOption { return func(b *Bus) { b.dep.replicas = n } }

// WithPrefix makes Connect use the streams, consumers, subjects and object store bucket of the
// deployment called prefix (CheckPrefix; default DefaultPrefix, whose names have no prefix):
// with another prefix P, the subjects are P.harvest.v1.…, the streams P_HARVEST_…, the stages'
// consumers P-harvest-<stage> and the bucket P-harvest-records, so deployments with different
// prefixes share nothing on one NATS server. Every process of a deployment must use the same
// prefix. The code keeps naming subjects harvest.v1.* (harvest.Subject*): the Bus maps them.
func WithPrefix(prefix string) ConnectOption { return func(b *Bus) { b.prefix = prefix } }

// WithDatabaseID makes Connect stamp the deployment's streams with id, the identity of its
// database (store.Store.DatabaseID), under StampKey, and refuse streams stamped with another
// database's (ErrOtherDeployment: two deployments with different databases on one prefix). A
// stream with no stamp yet (made before stamps) is adopted. Without it nothing is stamped or
// checked.
func WithDatabaseID(id string) ConnectOption { return func(b *Bus) { b.dep.databaseID = id } }

// WithFailedMaxAge makes Connect keep a message on the failed stream (StreamFailed, what
// `harvester replay` sends again) for d, the history's retention (--retention), rather than
// 30 days; 0 keeps them for ever. Every process of a deployment must use the same d, or each
// sets the stream to its own. The streams made again after the server lost them (lost.go) take
// it too.
func WithFailedMaxAge(d time.Duration) ConnectOption {
	return func(b *Bus) { b.dep.failedMaxAge = &d }
}

// Connect connects to the NATS server at url and creates or updates the deployment's streams.
// url may list several servers of one cluster, comma-separated (nats://a:4222,nats://b:4222):
// the client connects to one and moves to another when it goes away, so list them all. It
// returns an error naming url when no server can be reached, one has no JetStream, the streams
// cannot be made with the replicas asked for (a cluster with fewer servers), or they belong to
// another deployment (ErrOtherDeployment, WithDatabaseID); an error for a bad prefix.
func Connect(ctx context.Context, url string, opts ...ConnectOption) (*Bus, error) {
	b := &Bus{prefix: DefaultPrefix, dep: deployment{replicas: 1}}
	for _, o := range opts {
		o(b)
	}
	if b.dep.replicas < 1 || b.dep.replicas > MaxStreamReplicas {
		return nil, fmt.Errorf("stream replicas %d: want 1 to %d", b.dep.replicas, MaxStreamReplicas)
	}
	if err := CheckPrefix(b.prefix); err != nil {
		return nil, err
	}
	b.dep.names = newNames(b.prefix)
	nc, err := nats.Connect(url, nats.Name("harvester"), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", url, err)
	}
	js, err := jetstream.New(nc)
	if err == nil {
		err = whileUnavailable(ctx, nc, func(ctx context.Context) error { return ensureStreams(ctx, js, b.dep) })
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("NATS at %s: %w", url, err)
	}
	b.nc, b.js, b.pub = nc, js, NewPublisher(js)
	b.pub.setDeployment(b.dep)
	return b, nil
}

// Replicas is how many servers keep each of the bus's streams and consumers.
func (b *Bus) Replicas() int { return b.dep.replicas }

// Prefix is the bus's deployment name (WithPrefix).
func (b *Bus) Prefix() string { return b.dep.prefix() }

// Subject is the subject on the NATS server of the code's subject s (harvest.Subject*): s
// itself for DefaultPrefix, P.s for a prefix P. External systems publish triggers to
// Subject(harvest.SubjectTrigger) and read reports on Subject(harvest.SubjectReport).
func (b *Bus) Subject(s string) string { return b.dep.subject(s) }

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
	if err := recreateStreams(ctx, b.js, b.dep); err != nil {
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
	d.p.setDeployment(b.dep)
	d.p.published = b.pub.published
	return d, nil
}

// OnReport calls f (on a goroutine of the connection's) for every harvest report event from
// now on, without reading it, until cancel is called: the signal that some job finished, in
// any process (the scheduler's Kick). Core NATS delivery: an event missed while disconnected
// is not replayed.
func (b *Bus) OnReport(f func()) (cancel func(), err error) {
	sub, err := b.nc.Subscribe(b.dep.subject(harvest.SubjectReport), func(*nats.Msg) { f() })
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
	sub, err := b.nc.Subscribe(b.dep.subject(harvest.SubjectReport), func(m *nats.Msg) {
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

// QualityReports subscribes to the sources' quality events (harvest.SubjectQuality) from now on
// and returns them on a channel (buffered; events that find it full are dropped) until cancel
// is called. Core NATS delivery, as Reports.
func (b *Bus) QualityReports() (reports <-chan *harvest.QualityReport, cancel func(), err error) {
	ch := make(chan *harvest.QualityReport, 64)
	sub, err := b.nc.Subscribe(b.dep.subject(harvest.SubjectQuality), func(m *nats.Msg) {
		var rep harvest.QualityReport
		if json.Unmarshal(m.Data, &rep) != nil {
			return
		}
		select {
		case ch <- &rep:
		default:
		}
	})
	if err != nil {
		return nil, nil, fmt.Errorf("subscribe to quality reports: %w", err)
	}
	return ch, func() { _ = sub.Unsubscribe() }, nil
}
