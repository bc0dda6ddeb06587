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
	"github.com/ThreeDotsLabs/watermill/components/metrics"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/stages/compare"
	"github.com/harvester-dev/harvester/stages/report"
	"github.com/harvester-dev/harvester/stages/sync"
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
	Fetch fetch.Config
	// MaxRecordBytes caps one record (extract.Config.MaxRecordBytes); default
	// extract.DefaultMaxRecordBytes (16 MiB). Bodies over the message size travel by reference
	// (claim.go), whatever this is.
	MaxRecordBytes int
	// Notifier emails job reports when a job finishes; nil sends none.
	Notifier report.Notifier
	// Search is the search index SYNC keeps in step with the dataset table (writes are
	// batched by a search.Batcher); nil keeps no index.
	Search search.Index
	// MaxDeleteShare is the largest share of a source's live datasets a harvest job may delete
	// (0 < share <= 1). Default compare.DefaultMaxDeleteShare (0.5).
	MaxDeleteShare float64
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
	cfg   Config
	store store.Store
	pub   message.Publisher
	// extractPub and comparePub publish for the stages that publish from inside their handler.
	extractPub, comparePub *DeferredPublisher
	fetch                  fetch.Config
	report                 *report.Handler
	sync                   *sync.Handler
	compare                *compare.Handler
	search                 *search.Batcher // nil without an index
}

// Router runs the configured stages until its context ends or Close is called.
type Router struct {
	cfg    Config
	bus    *Bus
	pub    *Publisher
	router *message.Router
	subs   []*Subscriber
	search *search.Batcher
	report *report.Handler
	sync   *sync.Handler

	compare *compare.Handler
}

// New connects to NATS, ensures the streams and builds the stages' handlers. It returns an
// error when the config is invalid or NATS cannot be reached.
func New(ctx context.Context, cfg Config) (*Router, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	bus, err := Connect(ctx, cfg.NATSURL)
	if err != nil {
		return nil, err
	}
	r := &Router{cfg: cfg, bus: bus, pub: bus.Publisher()}
	if err := r.build(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *Router) build(ctx context.Context) error {
	var err error
	wlog := watermill.NewSlogLoggerWithLevelMapping(r.cfg.Logger, map[slog.Level]slog.Level{
		slog.LevelInfo: slog.LevelDebug})
	r.router, err = message.NewRouter(message.RouterConfig{CloseTimeout: 30 * time.Second}, wlog)
	if err != nil {
		return err
	}
	metrics.NewPrometheusMetricsBuilder(r.cfg.Registerer, "harvester", "stage").AddPrometheusRouterMetrics(r.router)
	rep, err := report.New(r.cfg.Store, r.cfg.Registerer, r.cfg.Notifier, r.cfg.Logger)
	if err != nil {
		return err
	}
	r.report = rep
	if r.cfg.Search != nil && slices.Contains(r.cfg.Stages, StageSync) {
		r.search = search.NewBatcher(r.cfg.Search, search.BatcherConfig{})
	}
	r.sync = sync.New(r.cfg.Store, r.search)
	d := &deps{cfg: r.cfg, store: r.cfg.Store, pub: r.pub, fetch: r.cfg.Fetch, report: rep, sync: r.sync, search: r.search}
	if d.extractPub, err = NewDeferredPublisher(r.bus.nc); err != nil {
		return err
	}
	if d.comparePub, err = NewDeferredPublisher(r.bus.nc); err != nil {
		return err
	}
	r.compare = compare.New(r.cfg.Store, d.comparePub, r.cfg.MaxDeleteShare)
	d.compare = r.compare
	for _, st := range topology(d) {
		if !slices.Contains(r.cfg.Stages, st.name) {
			continue
		}
		if err := r.addStage(st); err != nil {
			return err
		}
	}
	return nil
}

func (r *Router) addStage(st stage) error {
	pull := max(st.maxPending, st.subscriptions)
	sub := newSubscriber(r.bus.js, streamOf(st.subject), jetstream.ConsumerConfig{
		Durable: "harvest-" + st.name, FilterSubject: st.subject, AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: st.ackWait, MaxDeliver: r.cfg.MaxDeliver, MaxAckPending: max(1000, 2*pull),
	}, pull, st.subscriptions, time.Second, r.cfg.Logger)
	r.subs = append(r.subs, sub)
	h := r.router.AddHandler(st.name+"-0", st.subject, sub, "", r.pub, st.handler)
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
	return nil
}

// Publisher returns the router's routing publisher, for triggers.
func (r *Router) Publisher() message.Publisher { return r.pub }

// Bus returns the router's connection, for readiness checks.
func (r *Router) Bus() *Bus { return r.bus }

// Reports subscribes to harvest report events from now on and returns them on a channel
// (buffered; events that find it full are dropped) until cancel is called.
func (r *Router) Reports() (reports <-chan *harvest.Report, cancel func(), err error) {
	ch := make(chan *harvest.Report, 64)
	sub, err := r.bus.Conn().Subscribe(harvest.SubjectReport, func(m *nats.Msg) {
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
	if r.search != nil {
		r.search.Close()
	}
	if r.report != nil {
		r.report.Close()
	}
	if r.sync != nil {
		r.sync.Close()
	}
	if r.compare != nil {
		r.compare.Close()
	}
	if r.bus != nil {
		r.bus.Close()
	}
	return err
}
