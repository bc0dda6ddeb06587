package router

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/harvest"
)

// Config configures a Router. Logger and Registerer are required.
type Config struct {
	// Logger receives stage errors with job and record ids; watermill's own logs go at debug.
	Logger *slog.Logger
	// Registerer receives the handler metrics (latency histograms, message counters). Pass a
	// fresh prometheus.Registry in tests.
	Registerer prometheus.Registerer
	// MaxRetries is how often a failing handler is retried in-process before its stage gives
	// up on the message. Default 3.
	MaxRetries int
	// RetryInterval is the first wait between retries; it doubles each time. Default 100 ms.
	RetryInterval time.Duration
	// Unavailable, when set, says whether a handler's error means that a service the stage
	// needs is unreachable for now (its database restarting, store.Unreachable): such a
	// failure is retried at the capped backoff without counting against MaxRetries, for up to
	// UnavailableFor, so that a record is not given up on (settled errored, its work half done)
	// because the database was away for longer than the retries last. Default nil: every
	// failure counts.
	Unavailable func(error) bool
	// UnavailableFor bounds the uncounted retries of one message. Default 2 minutes.
	UnavailableFor time.Duration
	// MaxDeliver bounds JetStream redeliveries of a message that was never acked (a crashed or
	// stuck worker). Default 5.
	MaxDeliver int
	// BatchSize is how many messages a stage handles together, at most (its Stage.MaxBatch may
	// say fewer). Default DefaultBatchSize.
	BatchSize int
	// BatchLinger is how long a batch that has fewer than BatchSize messages waits for more
	// before it is handled; negative: not at all (what has arrived is handled). Default (0)
	// DefaultBatchLinger.
	BatchLinger time.Duration
}

// DefaultBatchSize and DefaultBatchLinger are Config's defaults (--batch-size, --batch-linger).
const (
	DefaultBatchSize   = 64
	DefaultBatchLinger = 5 * time.Millisecond
)

func (c Config) withDefaults() Config {
	c.BatchSize = cmp.Or(c.BatchSize, DefaultBatchSize)
	if c.BatchLinger == 0 {
		c.BatchLinger = DefaultBatchLinger
	}
	c.MaxRetries = cmp.Or(c.MaxRetries, 3)
	c.RetryInterval = cmp.Or(c.RetryInterval, 100*time.Millisecond)
	c.MaxDeliver = cmp.Or(c.MaxDeliver, 5)
	c.UnavailableFor = cmp.Or(c.UnavailableFor, 2*time.Minute)
	return c
}

func (c Config) validate() error {
	switch {
	case c.Logger == nil:
		return errors.New("router config: Logger is required")
	case c.Registerer == nil:
		return errors.New("router config: Registerer is required")
	case c.BatchSize < 1:
		return fmt.Errorf("router config: BatchSize %d is not at least 1", c.BatchSize)
	}
	return nil
}

// GiveUpFunc is a stage's give-up hook: called once the stage has given up on msg for good
// (after its retries, or a permanent error) and msg is kept on harvest.v1.failed.<stage>. It
// returns what ends the work of the message (an errored outcome, say), which the router
// publishes; an error leaves the message to be redelivered. The stage package provides it.
type GiveUpFunc func(msg *harvest.Message, cause error) ([]*harvest.Message, error)

// Stage is one durable consumer on one subject and its handler: a row of the pipeline's
// topology.
type Stage struct {
	// Name names the consumer (harvest-<Name>, P-harvest-<Name> for a prefix P), the metrics
	// and the failed subject (harvest.v1.failed.<Name>).
	Name string
	// Subject is what the stage consumes: the code's subject (harvest.Subject*), which the
	// router maps to the deployment's.
	Subject string
	// Handler is the stage (harvest's stage contract); its outputs go through the routing
	// Publisher.
	Handler harvest.BatchHandler
	// Deferred, when set, is the DeferredPublisher the handler publishes through itself: each
	// input is acked only after JetStream stored all the handler published.
	Deferred *DeferredPublisher
	// GiveUp settles a message the stage gave up on; nil publishes nothing more.
	GiveUp GiveUpFunc
	// AckWait is how long JetStream waits for an ack, or a sign of progress (the subscriber
	// sends one every AckWait/3 while the handler runs), before redelivering.
	AckWait time.Duration
	// Concurrency is how many messages of this stage one process handles at once, at least 1:
	// its batches of up to the batch size, Concurrency/batch size of them at once (rounded up;
	// at least 2 for batches of more than one, so that one batch is handled while another's
	// outputs are confirmed).
	Concurrency int
	// MaxPending is the size of a pull (at least the batch size).
	MaxPending int
	// MaxBatch caps the stage's batches below Config.BatchSize: 1 for a stage whose one message
	// is a long piece of work (a listing); 0: Config.BatchSize.
	MaxBatch int
	// DeliverNew makes a consumer created now start at the stream's next message instead of
	// its first: for a stage that follows a stream that keeps its history (the report events
	// CHECK settles on), which must not replay that history when it first starts.
	DeliverNew bool
}

// Router runs stages on a Bus until its context ends or Close is called.
type Router struct {
	cfg     Config
	bus     *Bus
	pub     *Publisher // the stages' outputs: a JetStream context of its own, for async publishing
	stages  []*batchStage
	metrics *stageMetrics
	lag     *jetstreamCollector
	running chan struct{}

	mu     sync.Mutex
	cancel context.CancelFunc // ends Run; nil before Run
	closed bool
	wg     sync.WaitGroup
}

// New returns a Router over bus (whose connection stays the caller's), with no stage yet.
func New(bus *Bus, cfg Config) (*Router, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	sm, err := newStageMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	lag := newJetStreamCollector(bus.js, bus.dep.names, cfg.Logger)
	if err := cfg.Registerer.Register(lag); err != nil {
		return nil, fmt.Errorf("register jetstream metrics: %w", err)
	}
	js, err := jetstream.New(bus.nc, jetstream.WithPublishAsyncTimeout(pubAckTimeout),
		jetstream.WithPublishAsyncMaxPending(16*flushWindow))
	if err != nil {
		return nil, err
	}
	pub := NewPublisher(js)
	pub.setDeployment(bus.dep)
	pub.published = bus.pub.published
	return &Router{cfg: cfg, bus: bus, pub: pub, metrics: sm, lag: lag, running: make(chan struct{})}, nil
}

// AddStage subscribes st's durable consumer when the router runs. Call it before Run.
func (r *Router) AddStage(st Stage) error {
	if st.Name == "" || st.Subject == "" || st.Handler == nil {
		return fmt.Errorf("router: stage %q needs a name, a subject and a handler", st.Name)
	}
	st.Concurrency = max(1, st.Concurrency)
	size := r.cfg.BatchSize
	if st.MaxBatch > 0 {
		size = min(size, st.MaxBatch)
	}
	size = min(size, st.Concurrency)
	workers := (st.Concurrency + size - 1) / size
	if size > 1 {
		workers = max(2, workers)
	}
	pull := max(st.MaxPending, size)
	ackWait := cmp.Or(st.AckWait, time.Minute)
	dep := r.bus.dep
	stream, durable := dep.stream(streamOf(st.Subject)), dep.durable(st.Name)
	sub := newSubscriber(r.bus.js, dep, stream, jetstream.ConsumerConfig{
		Durable: durable, FilterSubject: dep.subject(st.Subject), AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: ackWait, MaxDeliver: r.cfg.MaxDeliver, MaxAckPending: max(1000, 2*pull, 2*size*workers),
		Replicas: dep.replicas, DeliverPolicy: deliverPolicy(st.DeliverNew),
	}, pull, st.Concurrency, time.Second, r.cfg.Logger)
	sub.redelivered = r.metrics.redelivered.WithLabelValues(st.Name)
	r.metrics.init(st.Name)
	r.lag.add(consumerRef{stage: st.Name, stream: stream, durable: durable})
	h := st.Handler
	if st.Deferred != nil {
		h = flushedBatch(st.Deferred, h)
	}
	m := r.metrics
	r.stages = append(r.stages, &batchStage{st: st, cfg: r.cfg, bus: r.bus, pub: r.pub, sub: sub, handle: h, size: size,
		workers: workers, logger: r.cfg.Logger, prefix: dep.prefix(),
		received: m.received.WithLabelValues(st.Name), emitted: m.emitted.WithLabelValues(st.Name),
		errs: m.errors.WithLabelValues(st.Name), gaveUp: m.gaveUp.WithLabelValues(st.Name),
		unknown: m.unknownJob.WithLabelValues(st.Name), duration: m.duration.WithLabelValues(st.Name)})
	return nil
}

// deliverPolicy is a new consumer's start: the stream's first message, or with next its next.
func deliverPolicy(next bool) jetstream.DeliverPolicy {
	if next {
		return jetstream.DeliverNewPolicy
	}
	return jetstream.DeliverAllPolicy
}

// Run subscribes every stage and runs them until ctx ends or Close is called; it returns nil
// then, or the error of a stage that could not subscribe.
func (r *Router) Run(ctx context.Context) error {
	r.mu.Lock()
	if r.closed || r.cancel != nil {
		r.mu.Unlock()
		return errors.New("router: closed or already running")
	}
	ctx, cancel := context.WithCancel(ctx)
	r.cancel = cancel
	r.wg.Add(1)
	r.mu.Unlock()
	defer r.wg.Done()
	for _, st := range r.stages {
		batches, err := st.sub.Batches(ctx, st.size, r.cfg.BatchLinger)
		if err != nil {
			cancel()
			return fmt.Errorf("stage %s: %w", st.st.Name, err)
		}
		r.wg.Go(func() { st.run(ctx, batches) })
	}
	close(r.running)
	<-ctx.Done()
	return nil
}

// Running is closed once every stage is subscribed.
func (r *Router) Running() chan struct{} { return r.running }

// closeTimeout is how long Close waits for the batches in flight to be settled.
const closeTimeout = 30 * time.Second

// Close stops the stages, waiting up to closeTimeout for the batches in flight (a shutdown
// interrupts their handlers, whose messages are naked), and their subscriptions; the bus
// stays open. Calling it more than once, or before Run, is safe.
func (r *Router) Close() error {
	r.mu.Lock()
	r.closed = true
	if r.cancel != nil {
		r.cancel()
	}
	r.mu.Unlock()
	for _, st := range r.stages {
		_ = st.sub.Close()
	}
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(closeTimeout):
		return fmt.Errorf("router: stages still handling after %v", closeTimeout)
	}
}
