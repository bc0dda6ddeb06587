package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/dirlock"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/notify"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/retention"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/scheduler"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/web"
)

// ErrConfig marks an error that is the configuration's fault (a bad field), not a service's.
var ErrConfig = errors.New("pipeline config")

// Config is what one process runs and on which services. Zero fields take the documented
// defaults; Logger is required.
type Config struct {
	// Store, when set, is the store to use (the caller closes it); otherwise DatabaseURL.
	Store store.Store
	// DatabaseURL is Postgres, e.g. postgres://user@host:5432/harvester; "" is the SQLite file
	// harvester.db in DataDir. Migrations are applied on open.
	DatabaseURL string
	// NATSURL is the NATS server with JetStream, e.g. nats://127.0.0.1:4222, or the servers of
	// a JetStream cluster, comma-separated (list them all); "" runs an in-process nats-server
	// storing in DataDir/nats.
	NATSURL string
	// StreamReplicas is how many servers of a JetStream cluster keep each of Harvester's
	// streams, its stages' consumers and the object store bucket of bodies sent by reference
	// (router.WithStreamReplicas): 1 to router.MaxStreamReplicas, default 1; 3 on a 3-node
	// cluster survives the loss of any one node. The in-process server takes only 1.
	StreamReplicas int
	// NATSPrefix names the deployment on the NATS server (router.WithPrefix): its streams,
	// consumers, subjects and object store bucket. Default router.DefaultPrefix, whose names
	// are the ones from before prefixes (HARVEST_WORK, harvest.v1.*, harvest-<stage>,
	// harvest-records); another prefix P gives P_HARVEST_WORK, P.harvest.v1.*, …. Several
	// deployments with different databases share one NATS server only with different prefixes:
	// the streams of a NATS server at NATSURL are stamped with the database's identity
	// (store.Store.DatabaseID) and a process whose database is not the stamp's is refused at
	// start (ConnectBus). Every process of a
	// deployment must use the same prefix. Checked by router.CheckPrefix.
	NATSPrefix string
	// Retention is how long the history is kept (package retention; `--retention`): with a
	// Scheduler, its leader prunes the record versions and jobs older than it
	// (retention.Interval apart), and the failed stream keeps a message that long
	// (router.WithFailedMaxAge). 0 keeps everything, failed messages included.
	Retention time.Duration
	// DataDir holds the embedded default's SQLite file, JetStream data and bleve index.
	// Default "harvester-data".
	DataDir string
	// OpenSearchURL selects OpenSearch as the search index; "" is bleve in DataDir/search,
	// in a directory per database with Postgres (BleveDir).
	OpenSearchURL string
	// SearchIndex names the index (the OpenSearch alias, or the bleve directory); "none" keeps
	// no index. Default opensearch.DefaultAlias. Both setups take the names search.CheckIndexName
	// allows (OpenSearch's rule: lower case, no \ / * ? " < > | , # : or space, ...). It is
	// opened only by a process that runs SYNC or the API.
	SearchIndex string

	// Logger receives every part's logs; required.
	Logger *slog.Logger
	// Registry receives the metrics and is served at /metrics. Default a new registry.
	Registry *prometheus.Registry

	// Stages to run in this process (StageNames); nil runs none.
	Stages []string
	// Concurrency is how many messages of each per-record stage this process handles at once
	// (multiplied for COMPARE, SYNC and the aggregator, see topology.go). Default 4.
	Concurrency int
	// BatchSize and BatchLinger are router.Config's: how many messages a stage handles together
	// at most (default router.DefaultBatchSize, 64), and how long a batch short of that waits
	// for more (default router.DefaultBatchLinger, 5 ms; negative: not at all).
	BatchSize   int
	BatchLinger time.Duration
	// MaxRetries, RetryInterval and MaxDeliver are router.Config's (defaults 3, 100 ms, 5).
	MaxRetries    int
	RetryInterval time.Duration
	MaxDeliver    int
	// Fetch configures the HTTP client of EXTRACT and of the validate API (one per-host limit
	// for the process).
	Fetch fetch.Config
	// MaxRecordBytes caps one record; default extract.DefaultMaxRecordBytes (16 MiB).
	MaxRecordBytes int
	// MaxRDFPages caps the pages of a paged rdf source; default extract.DefaultMaxRDFPages.
	MaxRDFPages int
	// RDFMemTriples is how many triples an rdf source's graph keeps in memory before it spills
	// to a temporary file; default extract.DefaultRDFMemTriples.
	RDFMemTriples int
	// JobWindow caps one job's records in flight between EXTRACT and the aggregator
	// (extract.Config.JobWindow); 0: extract.DefaultJobWindow; negative: no cap.
	JobWindow int
	// RefuseLocalFiles makes EXTRACT fail a job whose source location is a file path instead of
	// reading it (extract.Config.RefuseLocalFiles): serve and worker set it unless
	// --local-files. Default false: files are read.
	RefuseLocalFiles bool
	// MaxDeleteShare is the largest share of a source's live datasets a harvest job may delete
	// (0 < share <= 1). Default compare.DefaultMaxDeleteShare (0.5).
	MaxDeleteShare float64
	// Languages is TRANSFORM's language preference for DCAT-AP records whose source sets no
	// `languages` option, most wanted first (harvest.ParseLanguages); nil: ["en"].
	Languages []string
	// LinkChecks, when set, checks the distribution URLs of the catalog (stages/check): SYNC
	// sends CHECK the URLs of the datasets it adds or changes, the scheduler's leader those of
	// stale checks, and the process runs CHECK when Stages names StageCheck. nil checks none:
	// SYNC sends nothing, the leader queues nothing and StageCheck in Stages runs nothing.
	LinkChecks *LinkCheckConfig
	// Mail, when set, emails job reports from the aggregator (notify.NewMailer; a config
	// without a host sends none); nil sends none.
	Mail *notify.Config

	// Scheduler runs the scheduler (due jobs, the cap, orphan cleanup) with this config; nil
	// runs none.
	Scheduler *scheduler.Config
	// API serves the HTTP API with this config; nil serves none.
	API *api.Config
	// Addr is where the HTTP handler listens once started, e.g. 127.0.0.1:8080 (port 0: any);
	// "" listens nowhere. Without the API it serves /healthz, /readyz and /metrics only.
	Addr string
	// OpsAddr is where /healthz, /readyz and /metrics alone listen too, on a listener of their
	// own (its own connection caps), so that probes and scrapes are answered while clients
	// fill Addr's; e.g. 0.0.0.0:9090. "" listens nowhere. Addr serves them as well.
	OpsAddr string
	// HTTP bounds the servers at Addr and OpsAddr: timeouts, header size, open connections, and
	// who a client is (its TrustedProxies also go to the API key limiter).
	HTTP HTTPConfig
	// SecureCookies marks the web UI's cookies Secure (web.Config.SecureCookies): set it when
	// the site is served over HTTPS.
	SecureCookies bool
}

func (c Config) withDefaults() Config {
	c.DataDir = cmp.Or(c.DataDir, "harvester-data")
	c.Concurrency = cmp.Or(c.Concurrency, 4)
	c.StreamReplicas = cmp.Or(c.StreamReplicas, 1)
	c.NATSPrefix = cmp.Or(c.NATSPrefix, router.DefaultPrefix)
	c.HTTP = c.HTTP.WithDefaults()
	if c.Registry == nil {
		c.Registry = prometheus.NewRegistry()
	}
	return c
}

func (c Config) validate() error {
	if c.Logger == nil {
		return fmt.Errorf("%w: Logger is required", ErrConfig)
	}
	if c.StreamReplicas < 1 || c.StreamReplicas > router.MaxStreamReplicas {
		return fmt.Errorf("%w: StreamReplicas %d is not in 1..%d", ErrConfig, c.StreamReplicas, router.MaxStreamReplicas)
	}
	if err := router.CheckPrefix(c.NATSPrefix); err != nil {
		return fmt.Errorf("%w: NATSPrefix: %w", ErrConfig, err)
	}
	if c.NATSURL == "" && c.StreamReplicas > 1 {
		return fmt.Errorf("%w: StreamReplicas %d needs a JetStream cluster (NATSURL); the in-process server keeps 1",
			ErrConfig, c.StreamReplicas)
	}
	if err := checkSearchIndex(c.SearchIndex); err != nil {
		return err
	}
	if c.Retention < 0 {
		return fmt.Errorf("%w: Retention %v is negative (0 keeps everything)", ErrConfig, c.Retention)
	}
	if c.BatchSize < 0 {
		return fmt.Errorf("%w: BatchSize %d is negative", ErrConfig, c.BatchSize)
	}
	if c.LinkChecks != nil && c.LinkChecks.Recheck < 0 {
		return fmt.Errorf("%w: LinkChecks.Recheck %v is negative", ErrConfig, c.LinkChecks.Recheck)
	}
	if c.MaxDeleteShare < 0 || c.MaxDeleteShare > 1 {
		return fmt.Errorf("%w: MaxDeleteShare %v is not in (0, 1]", ErrConfig, c.MaxDeleteShare)
	}
	if err := c.HTTP.validate(); err != nil {
		return err
	}
	for _, s := range c.Stages {
		if !slices.Contains(StageNames(), s) {
			return fmt.Errorf("%w: unknown stage %q (want one of %v)", ErrConfig, s, StageNames())
		}
	}
	return nil
}

// Pipeline is one process's part of Harvester: the store, one NATS connection (Bus), the
// search index, the stages, the scheduler and the HTTP handler, as its Config asks.
type Pipeline struct {
	cfg     Config
	reg     *registry // cfg.Registry, recording what the parts register
	store   store.Store
	bus     *router.Bus
	index   search.Index // nil: no index, or not opened here
	stages  *stages      // nil: no stage
	router  *router.Router
	sched   *scheduler.Scheduler
	handler http.Handler
	ops     http.Handler // /healthz, /readyz and /metrics alone, for cfg.OpsAddr
	addr    net.Addr
	opsAddr net.Addr
	// refused counts the connections each listener refused past HTTP.MaxConnsPerClient.
	refused *prometheus.CounterVec
	runErr  chan error
	closers []func()
	lock    *dirlock.Lock // the data directory's, when this process uses it (usesDataDir)
}

// New opens the services and builds every part that cfg asks for; nothing runs until Start.
// It returns an error wrapping ErrConfig for a bad field, or the first service that could not
// be opened (having released what it opened). Close the pipeline when done.
func New(ctx context.Context, cfg Config) (*Pipeline, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	p := &Pipeline{cfg: cfg, runErr: make(chan error, 3), reg: &registry{Registry: cfg.Registry}}
	if err := p.build(ctx); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Pipeline) build(ctx context.Context) error {
	cfg := p.cfg
	if usesDataDir(cfg) {
		lock, err := lockDataDir(cfg)
		if err != nil {
			return err
		}
		p.lock = lock
		p.closers = append(p.closers, func() { _ = lock.Release() })
	}
	p.store = cfg.Store
	if p.store == nil {
		st, err := OpenStore(ctx, cfg)
		if err != nil {
			return err
		}
		p.store = st
		p.closers = append(p.closers, st.Close)
	}
	natsURL := cfg.NATSURL
	if natsURL == "" {
		e, err := router.StartEmbedded(embeddedNATSDir(cfg))
		if err != nil {
			return err
		}
		p.closers = append(p.closers, e.Shutdown)
		natsURL = e.URL()
	}
	bus, err := ConnectBus(ctx, cfg, p.store, natsURL)
	if err != nil {
		return err
	}
	p.bus = bus
	p.closers = append(p.closers, bus.Close)
	if err := p.instrumentServices(); err != nil {
		return err
	}
	cfg = p.cfg
	if slices.Contains(cfg.Stages, StageSync) || cfg.API != nil {
		idx, err := OpenSearch(ctx, cfg)
		if err != nil {
			return err
		}
		if idx != nil {
			p.index = idx
			p.closers = append(p.closers, func() { _ = idx.Close() })
			if err := p.migrateIndex(ctx); err != nil {
				return err
			}
		}
	}
	if len(cfg.Stages) > 0 {
		if err := p.buildStages(); err != nil {
			return err
		}
	}
	if cfg.Scheduler != nil {
		if err := p.buildScheduler(); err != nil {
			return err
		}
	}
	return p.buildHandler()
}

// buildScheduler builds the scheduler of Config.Scheduler, with the retention's pruner and
// CHECK's recheck of stale links when they are on.
func (p *Pipeline) buildScheduler() error {
	cfg, bus := p.cfg, p.bus
	sc := *cfg.Scheduler
	if cfg.Retention > 0 && sc.Pruner == nil {
		pr, err := retention.New(retention.Config{Retention: cfg.Retention}, p.store, cfg.Logger, p.reg)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
		sc.Pruner = pr
		sc.PruneInterval = cmp.Or(sc.PruneInterval, retention.Interval(cfg.Retention))
	}
	if lc := cfg.LinkChecks; lc != nil && lc.Recheck > 0 && sc.Rechecker == nil {
		rc, err := check.NewRechecker(assess.StageStore{Store: p.store}, bus.Publisher(), lc.Recheck, cfg.Logger)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
		sc.Rechecker = rc
	}
	if sc.BusReady == nil {
		sc.BusReady = bus.StreamsReady // re-drives wait until the streams answer
	}
	s, err := scheduler.New(sc, p.store, bus.Publisher(), cfg.Logger)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p.sched = s
	return nil
}

// migrateIndex rebuilds the search index from the store when an older version made it, or
// when it is empty while the store has datasets (search.Migrate), before any stage writes to
// it: every process that opens the index does, and rebuilds at once end on one index. A
// current, non-empty index costs one search and no store query.
func (p *Pipeline) migrateIndex(ctx context.Context) error {
	reason, err := search.MigrateNeeded(ctx, p.store, p.index)
	if err != nil || reason == "" {
		return err
	}
	log := p.cfg.Logger
	switch reason {
	case search.MigrateOutdated:
		log.Info("search index: made by an older version's mapping; rebuilding it from the database before starting " +
			"(searches use the old index meanwhile; see docs/search-index.md)")
	case search.MigrateEmpty:
		log.Warn("search index: empty while the database has datasets (a new index, or its data was lost); " +
			"filling it from the database before starting (see docs/search-index.md)")
	}
	start := time.Now()
	r, err := search.Migrate(ctx, p.store, p.index)
	if err != nil {
		return err
	}
	if r != nil {
		log.Info("search index: rebuilt", "reason", string(r.Reason), "documents", r.Documents, "repaired_after",
			len(r.Reconciled.Missing)+len(r.Reconciled.Stale)+len(r.Reconciled.Orphaned), "took", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// buildStages builds the stages' handlers and the router that runs them.
func (p *Pipeline) buildStages() error {
	cfg := p.cfg
	var notifier *notify.Mailer
	if cfg.Mail != nil {
		m, err := notify.NewMailer(*cfg.Mail)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
		notifier = m
	}
	var unavailable func(error) bool // a database restarting: records wait for it (router.Config)
	if r, ok := p.store.(store.Reachability); ok {
		unavailable = r.Unreachable
	}
	r, err := router.New(p.bus, router.Config{Logger: cfg.Logger, Registerer: p.reg,
		MaxRetries: cfg.MaxRetries, RetryInterval: cfg.RetryInterval, MaxDeliver: cfg.MaxDeliver,
		BatchSize: cfg.BatchSize, BatchLinger: cfg.BatchLinger, Unavailable: unavailable})
	if err != nil {
		return err
	}
	p.router = r
	p.closers = append(p.closers, func() { _ = r.Close() })
	st, err := newStages(p, notifier)
	if err != nil {
		return err
	}
	p.stages = st
	// Closed after the router, which waits for the handlers in flight.
	p.closers = slices.Insert(p.closers, len(p.closers)-1, st.close)
	for _, row := range topology(st) {
		name := row.Name
		if name == harvest.StageCheckSettle { // CHECK's second consumer runs with its first
			name = StageCheck
		}
		if !slices.Contains(cfg.Stages, name) {
			continue
		}
		if err := r.AddStage(row); err != nil {
			return err
		}
	}
	return nil
}

// buildHandler builds the web UI and the API (web.New serves both), or the health handler
// alone, behind cfg.Addr.
func (p *Pipeline) buildHandler() error {
	cfg := p.cfg
	ready := map[string]func(context.Context) error{
		"database": func(ctx context.Context) error {
			_, _, err := p.store.OrganizationList(ctx, &store.PageParams{Limit: 1})
			return err
		},
		"nats": p.bus.Ping,
	}
	if err := p.instrumentState(ready); err != nil {
		return err
	}
	metrics := promhttp.HandlerFor(cfg.Registry, promhttp.HandlerOpts{Registry: cfg.Registry})
	p.ops = api.Health(ready, metrics, cfg.Logger)
	if cfg.API == nil {
		p.handler = p.ops
		return nil
	}
	// The API and the sign-in guess the same key: one limiter.
	limit := api.NewAuthLimiter(api.AuthLimitConfig{TrustedProxies: cfg.HTTP.TrustedProxies})
	h, err := api.New(*cfg.API, api.Deps{Store: p.store, AuthLimiter: limit, Logger: cfg.Logger, Metrics: metrics, Ready: ready,
		Fetch: cfg.Fetch, Search: p.index, Jobs: p.Jobs(), Queued: p.kick})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	site, err := web.New(web.Config{APIKey: cfg.API.APIKey, ProtectReads: cfg.API.ProtectReads,
		PrivateCatalog: cfg.API.PrivateCatalog, Catalog: cfg.API.Catalog,
		SecureCookies: cfg.SecureCookies, AllowPrivateSources: cfg.Fetch.AllowPrivate}, web.Deps{Store: p.store, API: h,
		Jobs: p.Jobs(), Search: p.index, Lag: p.bus.Lag, Logger: cfg.Logger, AuthLimiter: limit, Queued: p.kick,
		Validator: api.Validator{Fetch: cfg.Fetch, MaxRecords: cfg.API.ValidateMaxRecords}})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p.handler = site
	return nil
}

// Start runs the stages (returning once every one is subscribed), the scheduler and the HTTP
// listener at Config.Addr, until ctx ends or Close is called. An error of a running part
// later arrives on Err.
func (p *Pipeline) Start(ctx context.Context) error {
	if err := p.shareLinkLimits(ctx); err != nil {
		return err
	}
	if p.router != nil {
		started := make(chan error, 1)
		go func() {
			err := p.router.Run(ctx)
			started <- err
			p.runErr <- err
		}()
		select {
		case <-p.router.Running():
		case err := <-started:
			return fmt.Errorf("start stages: %w", err)
		}
		p.cfg.Logger.Info("stages running", "stages", p.cfg.Stages)
	}
	if p.sched != nil {
		p.sched.Start(ctx)
		p.closers = append(p.closers, p.sched.Stop)
		stop, err := p.bus.OnReport(p.sched.Kick) // a finished job frees a place: start the next one now
		if err != nil {
			return err
		}
		p.closers = append(p.closers, stop)
		p.cfg.Logger.Info("scheduler running", "max_jobs", p.cfg.Scheduler.MaxInProgress)
	}
	for _, l := range []struct {
		name, addr string
		h          http.Handler
		got        *net.Addr
	}{{"http", p.cfg.Addr, p.handler, &p.addr}, {"ops", p.cfg.OpsAddr, p.ops, &p.opsAddr}} {
		if l.addr == "" {
			continue
		}
		addr, err := p.serve(l.addr, l.h, p.refused.WithLabelValues(l.name))
		if err != nil {
			return err
		}
		*l.got = addr
		p.cfg.Logger.Info("listening", "listener", l.name, "addr", addr.String())
		if l.name == "http" && p.lock != nil { // a process refused the data directory is told where to ask instead
			if err := p.lock.SetAddr("http://" + addr.String()); err != nil {
				p.cfg.Logger.Warn("could not note the address in the data directory's lock file", "error", err)
			}
		}
	}
	return nil
}

// checkGroup is the members group (router.Join) of the processes that run CHECK.
const checkGroup = "check"

// shareLinkLimits, in a process that runs CHECK, joins the CHECK processes of the deployment
// before CHECK consumes anything, and keeps dividing the per-host limits of link checks by
// their number (check.Checker.SetShare), so that a host sees at most --link-host-concurrency
// requests at a time and --link-host-rate a second from all of them together (the
// concurrency while they are no more than it: each keeps one). The gauge
// harvester_check_workers is the number this process counts.
func (p *Pipeline) shareLinkLimits(ctx context.Context) error {
	if p.stages == nil || p.stages.checker == nil || p.bus == nil {
		return nil
	}
	workers := prometheus.NewGauge(prometheus.GaugeOpts{Name: "harvester_check_workers",
		Help: "The processes running CHECK that this one counts (itself included); each sends a host 1/n of the per-host link check limits."})
	if err := p.reg.Register(workers); err != nil {
		return err
	}
	checker := p.stages.checker
	leave, err := p.bus.Join(ctx, checkGroup, p.cfg.LinkChecks.Heartbeat, func(n int) {
		checker.SetShare(n)
		workers.Set(float64(n))
	})
	if err != nil {
		return fmt.Errorf("join the CHECK processes: %w", err)
	}
	p.closers = append(p.closers, leave)
	return nil
}

// serve listens on addr with the HTTP bounds and serves h there until Close; a serve error
// goes to Err.
func (p *Pipeline) serve(addr string, h http.Handler, refused prometheus.Counter) (net.Addr, error) {
	ln, srv, err := p.cfg.HTTP.listen(addr, h, refused)
	if err != nil {
		return nil, err
	}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			p.runErr <- err
		}
	}()
	p.closers = append(p.closers, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	})
	return ln.Addr(), nil
}

// kick is the API's Deps.Queued: the scheduler's Kick when this process runs one.
func (p *Pipeline) kick() {
	if p.sched != nil {
		p.sched.Kick()
	}
}

// Err delivers the error of a part that stopped while running (the stages' router, the HTTP
// server); the stages' router also sends nil when it stops after ctx ended.
func (p *Pipeline) Err() <-chan error { return p.runErr }

// Addr is where the HTTP handler listens, once started; nil without Config.Addr.
func (p *Pipeline) Addr() net.Addr { return p.addr }

// OpsAddr is where /healthz, /readyz and /metrics listen on their own, once started; nil
// without Config.OpsAddr.
func (p *Pipeline) OpsAddr() net.Addr { return p.opsAddr }

// Handler is the HTTP handler: the web UI at / and the API at /api/v1, or /healthz, /readyz
// and /metrics alone.
func (p *Pipeline) Handler() http.Handler { return p.handler }

// Store is the store the pipeline uses.
func (p *Pipeline) Store() store.Store { return p.store }

// Index is the search index; nil when none is kept or this process does not open it.
func (p *Pipeline) Index() search.Index { return p.index }

// Bus is the process's one NATS connection: its routing publisher sends triggers and jobs,
// and Reports follows the report events.
func (p *Pipeline) Bus() *router.Bus { return p.bus }

// Jobs is job control over the pipeline's store and bus (jobs.New).
func (p *Pipeline) Jobs() jobs.Control { return jobs.New(p.store, p.bus) }

// Close stops every part and releases the services, in the reverse order of their opening.
// Calling it more than once is safe.
func (p *Pipeline) Close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
	p.closers = nil
}
