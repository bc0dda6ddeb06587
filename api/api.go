package api

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// Config configures the API. Zero fields take the documented defaults.
type Config struct {
	// APIKey is the shared secret that writes need, sent as "X-API-Key: <key>" or
	// "Authorization: Bearer <key>". Empty refuses every write with 401 (HARVESTER_API_KEY
	// is not set); reads stay open.
	APIKey string
	// ProtectReads makes reads need the key too (harvester serve and api: HARVESTER_PROTECT_READS=1).
	// /healthz, /readyz, /metrics and the OpenAPI document stay open. It needs APIKey.
	ProtectReads bool
	// PrivateCatalog closes the public catalog too (the feeds, the CKAN-compatible API, the
	// public search and dataset pages): they need the key, or a signed-in operator on the
	// pages (serve --private-catalog, HARVESTER_PRIVATE_CATALOG=1). It needs APIKey.
	PrivateCatalog bool
	// Catalog is what the served catalog says of itself; its BaseURL starts every minted link.
	Catalog feeds.Catalog
	// MaxBodyBytes caps a request body; a larger one is refused with 413. Default 10 MiB.
	MaxBodyBytes int64
	// ValidateMaxRecords is how many datasets of one document POST /api/v1/validate checks and
	// answers; the rest is not read, and the answer says "truncated": true. It bounds the
	// answer's size and the memory it takes (about 200 bytes a valid record). Default 10,000.
	ValidateMaxRecords int
}

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	c.MaxBodyBytes = cmp.Or(c.MaxBodyBytes, 10<<20)
	c.Catalog = c.Catalog.WithDefaults()
	c.ValidateMaxRecords = cmp.Or(c.ValidateMaxRecords, defaultValidateMaxRecords)
	return c
}

// defaultValidateMaxRecords is Config.ValidateMaxRecords' default.
const defaultValidateMaxRecords = 10_000

func (c Config) validate() error {
	if c.PrivateCatalog && c.APIKey == "" {
		return errors.New("api: PrivateCatalog needs an APIKey: no one could read the catalog")
	}
	if c.ProtectReads && c.APIKey == "" {
		return errors.New("api: ProtectReads needs an APIKey: no request could be served")
	}
	if c.MaxBodyBytes < 0 {
		return errors.New("api: MaxBodyBytes must not be negative")
	}
	if c.ValidateMaxRecords < 0 {
		return errors.New("api: ValidateMaxRecords must not be negative")
	}
	return nil
}

// Deps are the API's collaborators.
type Deps struct {
	// Store is required.
	Store store.Store
	// Logger gets one line per request and the causes of 500s. Default slog.Default().
	Logger *slog.Logger
	// Metrics is served at /metrics; nil answers 404.
	Metrics http.Handler
	// Ready are the checks /readyz runs, by name (e.g. "database", "nats").
	Ready map[string]func(context.Context) error
	// Fetch configures the download of POST /api/v1/validate's url; zero fields take
	// fetch's defaults, and its retry budget is at most 20 s (the caller is waiting).
	Fetch fetch.Config
	// Search answers GET /api/v1/search; nil answers 503.
	Search search.Index
	// Jobs queues, cancels and replays jobs (its Store defaults to Store). Without its
	// Publisher a job cancelled through the API is not reported (no harvest report event,
	// email or harvester_jobs_finished_total); without its Bus, replay answers 503.
	Jobs jobs.Control
	// AuthLimiter limits how fast each client may try wrong API keys; the web UI's sign-in
	// shares it. Default NewAuthLimiter's defaults, for this handler alone.
	AuthLimiter *AuthLimiter
	// Queued, when set, is called after a job was queued through the API (the scheduler's
	// Kick, so that it starts at once instead of on the next tick).
	Queued func()
}

// server holds what the handlers need; it is the http.Handler that New returns.
type server struct {
	cfg     Config
	store   store.Store
	log     *slog.Logger
	metrics http.Handler
	ready   map[string]func(context.Context) error
	fetch   fetch.Config
	search  search.Index
	jobs    jobs.Control // Deps.Jobs, over store
	// queued is Deps.Queued; may be nil
	queued    func()
	authLimit *AuthLimiter
	// ckanCursors remembers where the CKAN API's offset pages of the store ended (ckan_page.go)
	ckanCursors ckanCursors
	mux         *http.ServeMux
	table       []route
	handler     http.Handler // mux behind the middleware
}

// validateRetryBudget bounds the retries of POST /api/v1/validate's download: a caller waits
// for the answer, so a failing URL is given up on after about half a minute, not the harvests'
// two minutes.
const validateRetryBudget = 20 * time.Second

// validateFetch is the fetch configuration of the validate endpoint: c (its per-host limit
// shared with the harvests) with a retry budget of at most validateRetryBudget.
func validateFetch(c fetch.Config) fetch.Config {
	c = c.WithDefaults()
	c.RetryBudget = min(c.RetryBudget, validateRetryBudget)
	return c
}

// New returns the API handler.
func New(cfg Config, deps Deps) (http.Handler, error) {
	return newServer(cfg, deps)
}

func newServer(cfg Config, deps Deps) (*server, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if deps.Store == nil {
		return nil, errors.New("api: Deps.Store is required")
	}
	s := &server{
		cfg:       cfg,
		store:     deps.Store,
		log:       cmp.Or(deps.Logger, slog.Default()),
		metrics:   deps.Metrics,
		ready:     deps.Ready,
		fetch:     validateFetch(deps.Fetch),
		search:    deps.Search,
		jobs:      deps.Jobs,
		queued:    deps.Queued,
		authLimit: deps.AuthLimiter,
		mux:       http.NewServeMux(),
	}
	if s.authLimit == nil {
		s.authLimit = NewAuthLimiter(AuthLimitConfig{})
	}
	if s.jobs.Store == nil {
		s.jobs.Store = s.store
	}
	s.mount(s.routes())
	return s, nil
}

// mount serves the routes of table behind the middleware.
func (s *server) mount(table []route) {
	s.table = table
	for _, rt := range s.table {
		s.mux.Handle(rt.pattern, s.endpoint(rt))
	}
	s.handler = s.logRequests(s.recoverPanics(http.HandlerFunc(s.dispatch)))
}

// ServeHTTP logs the request and answers unknown paths and methods with JSON 404 and 405.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}
