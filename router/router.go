package router

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/components/metrics"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
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
	// MaxDeliver bounds JetStream redeliveries of a message that was never acked (a crashed or
	// stuck worker). Default 5.
	MaxDeliver int
}

func (c Config) withDefaults() Config {
	c.MaxRetries = cmp.Or(c.MaxRetries, 3)
	c.RetryInterval = cmp.Or(c.RetryInterval, 100*time.Millisecond)
	c.MaxDeliver = cmp.Or(c.MaxDeliver, 5)
	return c
}

func (c Config) validate() error {
	switch {
	case c.Logger == nil:
		return errors.New("router config: Logger is required")
	case c.Registerer == nil:
		return errors.New("router config: Registerer is required")
	}
	return nil
}

// GiveUpFunc is a stage's give-up hook: called once the stage has given up on msg for good
// (after its retries, or a permanent error) and msg is kept on harvest.v1.failed.<stage>. It
// returns what ends the work of the message (an errored outcome, say), which the router
// publishes; an error leaves the message to be redelivered. The stage package provides it.
type GiveUpFunc func(msg *message.Message, cause error) ([]*message.Message, error)

// Stage is one durable consumer on one subject and its handler: a row of the pipeline's
// topology.
type Stage struct {
	// Name names the consumer (harvest-<Name>, P-harvest-<Name> for a prefix P), the metrics
	// and the failed subject (harvest.v1.failed.<Name>).
	Name string
	// Subject is what the stage consumes: the code's subject (harvest.Subject*), which the
	// router maps to the deployment's.
	Subject string
	// Handler handles one message; its outputs go through the routing Publisher.
	Handler message.HandlerFunc
	// Deferred, when set, is the DeferredPublisher the handler publishes through itself: each
	// input is acked only after JetStream stored all the handler published.
	Deferred *DeferredPublisher
	// GiveUp settles a message the stage gave up on; nil publishes nothing more.
	GiveUp GiveUpFunc
	// AckWait is how long JetStream waits for an ack, or a sign of progress (the subscriber
	// sends one every AckWait/3 while the handler runs), before redelivering.
	AckWait time.Duration
	// Concurrency is how many messages of this stage one process handles at once (its one
	// pull subscription hands that many to the handler concurrently); at least 1.
	Concurrency int
	// MaxPending is the size of a pull (at least Concurrency).
	MaxPending int
	// DeliverNew makes a consumer created now start at the stream's next message instead of
	// its first: for a stage that follows a stream that keeps its history (the report events
	// CHECK settles on), which must not replay that history when it first starts.
	DeliverNew bool
}

// Router runs stages on a Bus until its context ends or Close is called.
type Router struct {
	cfg     Config
	bus     *Bus
	router  *message.Router
	subs    []*Subscriber
	metrics *stageMetrics
	lag     *jetstreamCollector
}

// New returns a Router over bus (whose connection stays the caller's), with no stage yet.
func New(bus *Bus, cfg Config) (*Router, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	wlog := watermill.NewSlogLoggerWithLevelMapping(cfg.Logger, map[slog.Level]slog.Level{
		slog.LevelInfo: slog.LevelDebug})
	mr, err := message.NewRouter(message.RouterConfig{CloseTimeout: 30 * time.Second}, wlog)
	if err != nil {
		return nil, err
	}
	metrics.NewPrometheusMetricsBuilder(cfg.Registerer, "harvester", "stage").AddPrometheusRouterMetrics(mr)
	sm, err := newStageMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	lag := newJetStreamCollector(bus.js, bus.dep.names, cfg.Logger)
	if err := cfg.Registerer.Register(lag); err != nil {
		return nil, fmt.Errorf("register jetstream metrics: %w", err)
	}
	return &Router{cfg: cfg, bus: bus, router: mr, metrics: sm, lag: lag}, nil
}

// AddStage subscribes st's durable consumer when the router runs. Call it before Run.
func (r *Router) AddStage(st Stage) error {
	if st.Name == "" || st.Subject == "" || st.Handler == nil {
		return fmt.Errorf("router: stage %q needs a name, a subject and a handler", st.Name)
	}
	st.Concurrency = max(1, st.Concurrency)
	pull := max(st.MaxPending, st.Concurrency)
	ackWait := cmp.Or(st.AckWait, time.Minute)
	dep := r.bus.dep
	stream, durable := dep.stream(streamOf(st.Subject)), dep.durable(st.Name)
	sub := newSubscriber(r.bus.js, dep, stream, jetstream.ConsumerConfig{
		Durable: durable, FilterSubject: dep.subject(st.Subject), AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: ackWait, MaxDeliver: r.cfg.MaxDeliver, MaxAckPending: max(1000, 2*pull),
		Replicas: dep.replicas, DeliverPolicy: deliverPolicy(st.DeliverNew),
	}, pull, st.Concurrency, time.Second, r.cfg.Logger)
	sub.redelivered = r.metrics.redelivered.WithLabelValues(st.Name)
	r.subs = append(r.subs, sub)
	r.metrics.init(st.Name)
	r.lag.add(consumerRef{stage: st.Name, stream: stream, durable: durable})
	h := st.Handler
	if st.Deferred != nil {
		h = flushed(st.Deferred, h)
	}
	mh := r.router.AddHandler(st.Name+"-0", st.Subject, sub, "", r.bus.pub, h)
	mh.AddMiddleware(
		r.metrics.delivery(st.Name),
		logIDs(r.cfg.Logger, st.Name),
		poison(r.bus.pub, r.cfg.Logger, st.Name, st.GiveUp, r.metrics.gaveUp.WithLabelValues(st.Name)),
		middleware.Retry{MaxRetries: r.cfg.MaxRetries, InitialInterval: r.cfg.RetryInterval,
			MaxInterval: 10 * r.cfg.RetryInterval, Multiplier: 2,
			ShouldRetry: func(p middleware.RetryParams) bool {
				return !harvest.IsPermanent(p.Err) && !errors.Is(p.Err, context.Canceled)
			}}.Middleware,
		r.metrics.attempt(st.Name),
		unknownJob(r.cfg.Logger, st.Name, dep.prefix(), r.metrics.unknownJob.WithLabelValues(st.Name)),
		middleware.Recoverer,
	)
	return nil
}

// deliverPolicy is a new consumer's start: the stream's first message, or with next its next.
func deliverPolicy(next bool) jetstream.DeliverPolicy {
	if next {
		return jetstream.DeliverNewPolicy
	}
	return jetstream.DeliverAllPolicy
}

// Run runs the stages until ctx ends or Close is called.
func (r *Router) Run(ctx context.Context) error { return r.router.Run(ctx) }

// Running is closed once every stage is subscribed.
func (r *Router) Running() chan struct{} { return r.router.Running() }

// Close stops the stages, waiting for handlers in flight, and their subscriptions; the bus
// stays open. Calling it more than once, or before Run, is safe.
func (r *Router) Close() error {
	err := r.router.Close()
	for _, s := range r.subs {
		_ = s.Close()
	}
	r.subs = nil
	return err
}
