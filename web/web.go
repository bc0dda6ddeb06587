package web

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// Config configures the web UI. Zero fields take the documented defaults.
type Config struct {
	// APIKey is the key operators sign in with, the API's (api.Config.APIKey). Empty: nobody
	// can sign in, every write is refused; the pages still read.
	APIKey string
	// ProtectReads makes every page but /sign-in need a signed-in operator, as the API's
	// Config.ProtectReads (HARVESTER_PROTECT_READS=1) makes its reads need the key. It needs APIKey.
	ProtectReads bool
	// PrivateCatalog makes the public catalog's pages (the feeds, the public search and
	// dataset pages) need a signed-in operator too, as the API's Config.PrivateCatalog.
	PrivateCatalog bool
	// Catalog is what the served catalog says of itself; its BaseURL starts every minted link.
	Catalog feeds.Catalog
	// SessionTTL is how long a sign-in lasts. Default 12 h.
	SessionTTL time.Duration
	// SecureCookies marks the cookies Secure (served over HTTPS only). Default false, so that
	// a plain-HTTP deployment on a private network can sign in.
	SecureCookies bool
	// AllowPrivateSources lets the source form save URLs on loopback, private and link-local
	// addresses, as the API's (fetch.Config.AllowPrivate, --allow-private-sources).
	AllowPrivateSources bool
}

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	c.SessionTTL = cmp.Or(c.SessionTTL, 12*time.Hour)
	c.Catalog = c.Catalog.WithDefaults()
	return c
}

// Deps are the web UI's collaborators.
type Deps struct {
	// Store is required: pages read it directly.
	Store store.Store
	// API is the API handler (api.New). Required: it serves /api/, /healthz, /readyz and
	// /metrics beside the pages. The pages never call it: they call the API's typed functions
	// (package sources, api.Validator, api.WriteRecordErrorsCSV) and Jobs.
	API http.Handler
	// Validator checks the validate page's documents: give it the API's
	// (api.Deps.Fetch, api.Config.ValidateMaxRecords). The zero value takes their defaults.
	Validator api.Validator
	// Jobs cancels and replays jobs (its Store defaults to Store); without its Bus the job
	// page offers no replay.
	Jobs jobs.Control
	// Search answers the search page; nil shows that no index is configured.
	Search search.Index
	// Lag gives the metrics page each stage consumer's backlog and the failed records kept
	// per stage (router.(*Bus).Lag); nil leaves them out.
	Lag func(ctx context.Context) (*router.Lag, error)
	// Logger gets the causes of 500s. Default slog.Default().
	Logger *slog.Logger
	// AuthLimiter limits how fast each client may try wrong API keys at sign-in: give it the
	// API's (api.Deps.AuthLimiter), as both guess the same key. Default api.NewAuthLimiter's
	// defaults, for the sign-in alone.
	AuthLimiter *api.AuthLimiter
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Queued, when set, is called after a job was queued from a source page: the scheduler's
	// kick, as the API's Deps.Queued.
	Queued func()
}

// server is the http.Handler New returns.
type server struct {
	cfg Config
	// datasetFormats are the answers of /dataset/{slug}{ext} by ext (publicRoutes).
	datasetFormats map[string]datasetFormat
	feeds          publicFeeds // the feeds publicRoutes mounts
	store          store.Store
	api            http.Handler
	jobs           jobs.Control
	search         search.Index
	lag            func(ctx context.Context) (*router.Lag, error)
	log            *slog.Logger
	now            func() time.Time
	key            []byte // session and CSRF HMAC key, derived from the API key
	// authLimit is Deps.AuthLimiter
	authLimit *api.AuthLimiter
	sources   sources.Sources // source and organization writes: the API's checks and messages
	validator api.Validator
	queued    func() // Deps.Queued; may be nil
	pages     *http.ServeMux
	// catalogScoring makes concurrent /quality requests share one scoring of the catalog.
	catalogScoring singleflight.Group
}

// New returns the handler of the whole site: the pages at /, and deps.API at /api/, /healthz,
// /readyz and /metrics.
func New(cfg Config, deps Deps) (http.Handler, error) {
	cfg = cfg.WithDefaults()
	if cfg.ProtectReads && cfg.APIKey == "" {
		return nil, errors.New("web: ProtectReads needs an APIKey: nobody could sign in")
	}
	if deps.Store == nil {
		return nil, errors.New("web: Deps.Store is required")
	}
	if deps.API == nil {
		return nil, errors.New("web: Deps.API is required")
	}
	s := &server{cfg: cfg, store: deps.Store, api: deps.API, jobs: deps.Jobs, search: deps.Search, lag: deps.Lag,
		log: cmp.Or(deps.Logger, slog.Default()), now: deps.Now, pages: http.NewServeMux()}
	if deps.Now == nil {
		s.now = time.Now
	}
	if s.jobs.Store == nil {
		s.jobs.Store = deps.Store
	}
	s.key = deriveKey(cfg.APIKey)
	s.sources = sources.Sources{Store: deps.Store, AllowPrivate: cfg.AllowPrivateSources, Index: deps.Search}
	s.queued = deps.Queued
	s.validator = deps.Validator
	s.authLimit = deps.AuthLimiter
	if s.authLimit == nil {
		s.authLimit = api.NewAuthLimiter(api.AuthLimitConfig{})
	}
	s.routes()
	return s, nil
}

// ServeHTTP sends API paths to the API and everything else to the pages.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if strings.HasPrefix(p, "/api/") || p == "/api" || p == "/healthz" || p == "/readyz" || p == "/metrics" {
		s.api.ServeHTTP(w, r)
		return
	}
	s.pages.ServeHTTP(w, r)
}
