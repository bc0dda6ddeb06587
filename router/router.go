package router

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	jsw "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/jetstream"
	"github.com/ThreeDotsLabs/watermill/components/metrics"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/report"
	"github.com/harvester-dev/harvester/store"
)

// Config configures a Router. Store, NATSURL, Logger and Registerer are required.
type Config struct {
	// NATSURL is the NATS server with JetStream, e.g. nats://127.0.0.1:4222.
	NATSURL string
	// Store is the system of record every stage writes to.
	Store store.Store
	// Logger receives stage errors with job and record ids; watermill's own logs go at debug.
	Logger *slog.Logger
	// Registerer receives the stage metrics (handler latency histograms, message counters,
	// record outcomes). Pass a fresh prometheus.Registry in tests.
	Registerer prometheus.Registerer
	// Stages to run in this process; default all (StageNames).
	Stages []string
	// Subscriptions is how many messages of each per-record stage this process handles at
	// once. Default 4.
	Subscriptions int
	// MaxRetries is how often a failing handler is retried in-process before the failure
	// policy settles its message. Default 3.
	MaxRetries int
	// RetryInterval is the first wait between retries; it doubles each time. Default 100 ms.
	RetryInterval time.Duration
	// MaxDeliver bounds JetStream redeliveries of a message that was never acked (a crashed or
	// stuck worker). Default 5.
	MaxDeliver int
	// Fetch configures EXTRACT's HTTP client.
	Fetch extract.FetchConfig
}

func (c Config) withDefaults() Config {
	if len(c.Stages) == 0 {
		c.Stages = StageNames()
	}
	c.Subscriptions = cmp.Or(c.Subscriptions, 4)
	c.MaxRetries = cmp.Or(c.MaxRetries, 3)
	c.RetryInterval = cmp.Or(c.RetryInterval, 100*time.Millisecond)
	c.MaxDeliver = cmp.Or(c.MaxDeliver, 5)
	return c
}

func (c Config) validate() error {
	switch {
	case c.NATSURL == "":
		return fmt.Errorf("router config: NATSURL is required")
	case c.Store == nil:
		return fmt.Errorf("router config: Store is required")
	case c.Logger == nil:
		return fmt.Errorf("router config: Logger is required")
	case c.Registerer == nil:
		return fmt.Errorf("router config: Registerer is required")
	}
	for _, s := range c.Stages {
		if !slices.Contains(StageNames(), s) {
			return fmt.Errorf("router config: unknown stage %q (want one of %v)", s, StageNames())
		}
	}
	return nil
}

// deps is what the topology builds stages from.
type deps struct {
	cfg    Config
	store  store.Store
	pub    message.Publisher
	fetch  extract.FetchConfig
	report *report.Handler
}

// Router runs the configured stages until its context ends or Close is called.
type Router struct {
	cfg    Config
	nc     *nats.Conn
	pub    *Publisher
	router *message.Router
	subs   []*jsw.Subscriber
}

// New connects to NATS, ensures the streams and builds the stages' handlers. It returns an
// error when the config is invalid or NATS cannot be reached.
func New(ctx context.Context, cfg Config) (*Router, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	nc, err := nats.Connect(cfg.NATSURL, nats.Name("harvester"))
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", cfg.NATSURL, err)
	}
	r := &Router{cfg: cfg, nc: nc}
	if err := r.build(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *Router) build(ctx context.Context) error {
	js, err := jetstream.New(r.nc)
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	if err := EnsureStreams(ctx, js); err != nil {
		return err
	}
	r.pub = NewPublisher(js)
	wlog := watermill.NewSlogLoggerWithLevelMapping(r.cfg.Logger, map[slog.Level]slog.Level{
		slog.LevelInfo: slog.LevelDebug})
	r.router, err = message.NewRouter(message.RouterConfig{CloseTimeout: 30 * time.Second}, wlog)
	if err != nil {
		return err
	}
	metrics.NewPrometheusMetricsBuilder(r.cfg.Registerer, "harvester", "stage").AddPrometheusRouterMetrics(r.router)
	rep, err := report.New(r.cfg.Store, r.cfg.Registerer)
	if err != nil {
		return err
	}
	d := &deps{cfg: r.cfg, store: r.cfg.Store, pub: r.pub, fetch: r.cfg.Fetch, report: rep}
	for _, st := range topology(d) {
		if !slices.Contains(r.cfg.Stages, st.name) {
			continue
		}
		if err := r.addStage(st, wlog); err != nil {
			return err
		}
	}
	return nil
}

func (r *Router) addStage(st stage, wlog watermill.LoggerAdapter) error {
	for i := range st.subscriptions {
		nc, err := nats.Connect(r.cfg.NATSURL, nats.Name("harvester-"+st.name))
		if err != nil {
			return fmt.Errorf("connect %s subscriber: %w", st.name, err)
		}
		sub, err := jsw.NewSubscriber(jsw.SubscriberConfig{Conn: nc, Logger: wlog, AckWaitTimeout: st.ackWait,
			ResourceInitializer: r.durable(st), NakDelay: jsw.NewStaticDelay(time.Second), AckAsync: true,
			ConsumeOptions: []jetstream.PullConsumeOpt{jetstream.PullMaxMessages(st.maxPending)}})
		if err != nil {
			nc.Close()
			return fmt.Errorf("%s subscriber: %w", st.name, err)
		}
		r.subs = append(r.subs, sub)
		h := r.router.AddHandler(fmt.Sprintf("%s-%d", st.name, i), st.subject, sub, "", r.pub, st.handler)
		h.AddMiddleware(
			logIDs(r.cfg.Logger, st.name),
			failurePolicy(r.cfg.Store, r.pub, r.cfg.Logger, st.name),
			middleware.Retry{MaxRetries: r.cfg.MaxRetries, InitialInterval: r.cfg.RetryInterval,
				MaxInterval: 10 * r.cfg.RetryInterval, Multiplier: 2,
				ShouldRetry: func(p middleware.RetryParams) bool {
					return !harvest.IsPermanent(p.Err) && !errors.Is(p.Err, context.Canceled)
				}}.Middleware,
			middleware.Recoverer,
		)
	}
	return nil
}

// durable creates or binds the stage's durable consumer, shared by every process running it.
func (r *Router) durable(st stage) jsw.ResourceInitializer {
	return func(ctx context.Context, js jetstream.JetStream, _ string) (jetstream.Consumer, func(context.Context, watermill.LoggerAdapter), error) {
		stream := StreamWork
		if st.subject == harvest.SubjectSettled {
			stream = StreamSettled
		}
		c, err := js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{
			Durable: "harvest-" + st.name, FilterSubject: st.subject, AckPolicy: jetstream.AckExplicitPolicy,
			AckWait: st.ackWait, MaxDeliver: r.cfg.MaxDeliver, MaxAckPending: max(1000, st.maxPending*r.cfg.Subscriptions),
		})
		if err != nil {
			return nil, nil, fmt.Errorf("consumer for stage %s: %w", st.name, err)
		}
		return c, nil, nil
	}
}

// Publisher returns the router's routing publisher, for triggers.
func (r *Router) Publisher() message.Publisher { return r.pub }

// Reports subscribes to harvest report events from now on and returns them on a channel
// (buffered; events that find it full are dropped) until cancel is called.
func (r *Router) Reports() (reports <-chan *harvest.Report, cancel func(), err error) {
	ch := make(chan *harvest.Report, 64)
	sub, err := r.nc.Subscribe(harvest.SubjectReport, func(m *nats.Msg) {
		var rep harvest.Report
		if json.Unmarshal(m.Data, &rep) != nil {
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

// Run runs the stages until ctx ends or Close is called.
func (r *Router) Run(ctx context.Context) error { return r.router.Run(ctx) }

// Running is closed once every stage is subscribed.
func (r *Router) Running() chan struct{} { return r.router.Running() }

// Close stops the stages (waiting for handlers in flight) and closes the connections. Calling
// it more than once, or before Run, is safe.
func (r *Router) Close() error {
	var err error
	if r.router != nil {
		err = r.router.Close()
	}
	for _, s := range r.subs {
		_ = s.Close()
	}
	r.subs = nil
	if r.nc != nil {
		r.nc.Close()
	}
	return err
}
