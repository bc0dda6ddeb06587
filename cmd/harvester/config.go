package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// serviceFlags are the connection settings every command that runs stages shares. An empty
// database URL means the SQLite file in the data directory; an empty NATS URL means an
// in-process nats-server storing in the data directory (the embedded default).
type serviceFlags struct {
	databaseURL string
	natsURL     string
	dataDir     string
	// streamReplicas is the JetStream replica count of the streams and consumers (--stream-replicas).
	streamReplicas int
	// natsPrefix names the deployment's streams, consumers and subjects (--nats-prefix).
	natsPrefix string
	logLevel   string
	// maxDeleteShare is the largest share of a source's live datasets a harvest job may delete.
	maxDeleteShare float64
	// allowPrivate lets sources live on loopback and private addresses (SSRF guard off).
	allowPrivate bool
	// opensearchURL selects OpenSearch as the search index; empty means bleve in dataDir.
	opensearchURL string
	// searchIndex names the index: the OpenSearch alias, or the bleve directory under
	// dataDir/search; "none" keeps no index.
	searchIndex string
	// languages is the language preference for DCAT-AP records (--languages), comma-separated.
	languages string
	// maxRecordBytes caps one record (--max-record-bytes); 0: extract.DefaultMaxRecordBytes.
	maxRecordBytes int
	// maxRDFPages caps a paged rdf source's pages (--max-rdf-pages); 0: extract.DefaultMaxRDFPages.
	maxRDFPages int
	// rdfMemTriples is how many triples an rdf source's graph keeps in memory before it spills
	// to disk (--rdf-mem-triples); 0: extract.DefaultRDFMemTriples.
	rdfMemTriples int
	// jobWindow caps one job's records in flight (--job-window); 0: extract.DefaultJobWindow;
	// negative: no cap.
	jobWindow int
	// fetchProxy is the HTTP proxy of every download (--fetch-proxy); empty: none, whatever
	// HTTP_PROXY says.
	fetchProxy string
	// userAgent is the operator's contact URL every request names in its User-Agent
	// (--user-agent, fetch.UserAgent); empty: none.
	userAgent string
	// fetch holds the fetch flags (0: the fetch.Config default); fetchConfig completes it.
	fetch fetch.Config
	// fetchMade is the configuration fetchConfig made, shared by every user in the process so
	// that they share one per-host limit.
	fetchMade *fetch.Config
	// retention is how long the history is kept (--retention): the scheduler's prune and the
	// failed stream's max age; 0 keeps everything.
	retention time.Duration
	flagEnv
}

// fetchConfig is the fetch client's configuration from the flags, the same one on every call.
func (f *serviceFlags) fetchConfig() fetch.Config {
	if f.fetchMade == nil {
		c := f.fetch
		c.AllowPrivate = f.allowPrivate
		c.UserAgent = fetch.UserAgent(f.userAgent)
		c.Proxy, _ = url.Parse(f.fetchProxy) // checked by checkFetch
		if f.fetchProxy == "" {
			c.Proxy = nil
		}
		c = c.WithDefaults()
		f.fetchMade = &c
	}
	return *f.fetchMade
}

// registerFetch adds the fetch client's flags (flagTable); 0 keeps fetch.Config's default.
func (f *serviceFlags) registerFetch(cmd *cobra.Command) {
	f.bind(cmd, &f.fetch.Timeout, "fetch-timeout")
	f.bind(cmd, &f.fetch.MaxBytes, "fetch-max-bytes")
	f.bind(cmd, &f.fetch.Attempts, "fetch-attempts")
	f.bind(cmd, &f.fetch.RetryBudget, "fetch-retry-budget")
	f.bind(cmd, &f.fetch.MaxRedirects, "fetch-max-redirects")
	f.bind(cmd, &f.fetch.MaxPerHost, "fetch-max-per-host")
	f.bind(cmd, &f.maxRecordBytes, "max-record-bytes")
	f.bind(cmd, &f.maxRDFPages, "max-rdf-pages")
	f.bind(cmd, &f.rdfMemTriples, "rdf-mem-triples")
	f.bind(cmd, &f.jobWindow, "job-window")
	f.bind(cmd, &f.fetchProxy, "fetch-proxy")
	f.bind(cmd, &f.userAgent, "user-agent")
}

// checkFetch rejects negative fetch flags.
func (f *serviceFlags) checkFetch() error {
	for _, c := range []struct {
		name string
		bad  bool
	}{
		{"--fetch-timeout", f.fetch.Timeout < 0}, {"--fetch-max-bytes", f.fetch.MaxBytes < 0},
		{"--fetch-attempts", f.fetch.Attempts < 0}, {"--fetch-retry-budget", f.fetch.RetryBudget < 0},
		{"--fetch-max-redirects", f.fetch.MaxRedirects < 0}, {"--fetch-max-per-host", f.fetch.MaxPerHost < 0},
		{"--max-record-bytes", f.maxRecordBytes < 0}, {"--max-rdf-pages", f.maxRDFPages < 0},
		{"--rdf-mem-triples", f.rdfMemTriples < 0},
	} {
		if c.bad {
			return usageError{fmt.Errorf("%s: must not be negative (0 means the default)", c.name)}
		}
	}
	if f.userAgent != "" {
		u, err := url.Parse(f.userAgent)
		if err != nil || !((u.Scheme == "http" || u.Scheme == "https") && u.Host != "" || u.Scheme == "mailto" && u.Opaque != "") ||
			strings.ContainsAny(f.userAgent, " ;()") {
			return usageError{fmt.Errorf("--user-agent: %q is not a contact URL: want https://… or mailto:…, "+
				"without spaces, semicolons or parentheses", f.userAgent)}
		}
	}
	if f.fetchProxy != "" {
		u, err := url.Parse(f.fetchProxy)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5") || u.Host == "" {
			return usageError{fmt.Errorf("--fetch-proxy: %q is not an http://, https:// or socks5:// proxy URL", f.fetchProxy)}
		}
	}
	return nil
}

// register adds the services' flags (flagTable) to cmd, and a check of their environment
// variables before it runs.
func (f *serviceFlags) register(cmd *cobra.Command) {
	for _, b := range []struct {
		ptr any
		id  string
	}{
		{&f.databaseURL, "database-url"}, {&f.natsURL, "nats-url"}, {&f.streamReplicas, "stream-replicas"},
		{&f.natsPrefix, "nats-prefix"}, {&f.dataDir, "data-dir"}, {&f.logLevel, "log-level"},
		{&f.allowPrivate, "allow-private-sources"}, {&f.opensearchURL, "opensearch-url"},
		{&f.searchIndex, "search-index"}, {&f.maxDeleteShare, "max-delete-share"}, {&f.languages, "languages"},
	} {
		f.bind(cmd, b.ptr, b.id)
	}
	f.registerFetch(cmd)
	f.registerRetention(cmd)
	cmd.PreRunE = func(*cobra.Command, []string) error { return f.envErr() }
}

// servicesHelp says which services a command will use, read from the environment, and how to
// point it at others.
func servicesHelp() string {
	dbEnv, natsEnv, osEnv := envName("database-url"), envName("nats-url"), envName("opensearch-url")
	dir := (&flagEnv{}).envString("data-dir")
	db := "SQLite database " + filepath.Join(dir, "harvester.db") + " (set " + dbEnv + " or --database-url to use Postgres)"
	if os.Getenv(dbEnv) != "" {
		db = "Postgres from " + dbEnv + " (unset it to use SQLite in the data directory)"
	}
	bus := "an in-process nats-server with JetStream storing in " + filepath.Join(dir, "nats") +
		" (set " + natsEnv + " or --nats-url to use a NATS server)"
	if os.Getenv(natsEnv) != "" {
		bus = "the NATS server at " + natsEnv + " (unset it to run one in-process)"
	}
	index := envSearchLocation(dir) + " (set " + osEnv + " or --opensearch-url to use OpenSearch)"
	if os.Getenv(osEnv) != "" {
		index = "OpenSearch at " + osEnv
	}
	return "Services in use:\n  store: " + db + "\n  bus:   " + bus + "\n  index: " + index + "\n"
}

// logger checks the shared flags and returns the logger they ask for.
func (f *serviceFlags) logger() (*slog.Logger, error) {
	if f.maxDeleteShare <= 0 || f.maxDeleteShare > 1 {
		return nil, usageError{fmt.Errorf("--max-delete-share: %v is not in (0, 1]", f.maxDeleteShare)}
	}
	if err := f.checkFetch(); err != nil {
		return nil, err
	}
	if f.streamReplicas < 1 || f.streamReplicas > router.MaxStreamReplicas {
		return nil, usageError{fmt.Errorf("--stream-replicas: %d is not in 1..%d", f.streamReplicas, router.MaxStreamReplicas)}
	}
	if err := router.CheckPrefix(f.natsPrefix); err != nil {
		return nil, usageError{fmt.Errorf("--nats-prefix: %w", err)}
	}
	if f.streamReplicas > 1 && f.natsURL == "" {
		return nil, usageError{fmt.Errorf("--stream-replicas %d needs a JetStream cluster (--nats-url or NATS_URL); "+
			"the in-process server keeps 1", f.streamReplicas)}
	}
	if _, err := harvest.ParseLanguages(f.languages); err != nil {
		return nil, usageError{fmt.Errorf("--%w", err)}
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, usageError{fmt.Errorf("--log-level: %w", err)}
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl})), nil
}

// config is the pipeline configuration of the flags' services, for a process that runs
// nothing yet: the caller sets the parts (stages, scheduler, API).
func (f *serviceFlags) config(logger *slog.Logger) pipeline.Config {
	return pipeline.Config{DatabaseURL: f.databaseURL, NATSURL: f.natsURL, StreamReplicas: f.streamReplicas,
		NATSPrefix: f.natsPrefix, DataDir: f.dataDir,
		OpenSearchURL: f.opensearchURL, SearchIndex: f.searchIndex, Logger: logger, MaxDeleteShare: f.maxDeleteShare,
		Fetch: f.fetchConfig(), MaxRecordBytes: f.maxRecordBytes, MaxRDFPages: f.maxRDFPages,
		RDFMemTriples: f.rdfMemTriples, JobWindow: f.jobWindow, Languages: f.languageList(), Retention: f.retention}
}

// languageList is --languages as a list (checked by logger); nil when it does not parse.
func (f *serviceFlags) languageList() []string {
	langs, _ := harvest.ParseLanguages(f.languages)
	return langs
}

// openStore opens the store (Postgres when a database URL is set, else the SQLite file in the
// data directory) and applies pending migrations.
func (f *serviceFlags) openStore(ctx context.Context) (store.Store, error) {
	return pipeline.OpenStore(ctx, f.config(nil))
}

// checkSearchIndex rejects a --search-index other than none that breaks the index naming rule
// (search.CheckIndexName), for both setups.
func (f *serviceFlags) checkSearchIndex() error {
	if f.searchIndex == "none" {
		return nil
	}
	if err := search.CheckIndexName(f.searchIndex); err != nil {
		return usageError{fmt.Errorf("--search-index: %w", err)}
	}
	return nil
}

// openSearch opens the search index the flags select: OpenSearch when an OpenSearch URL is
// set, else bleve in the data directory; nil (and no error) for --search-index none. Close
// the index when done.
func (f *serviceFlags) openSearch(ctx context.Context) (search.Index, error) {
	if err := f.checkSearchIndex(); err != nil {
		return nil, err
	}
	return pipeline.OpenSearch(ctx, f.config(nil))
}

// openSearchToRebuild opens the search index as openSearch does, taking an OpenSearch alias in
// any state (pipeline.OpenSearchToRebuild), for a full reindex.
func (f *serviceFlags) openSearchToRebuild(ctx context.Context) (search.Index, error) {
	if err := f.checkSearchIndex(); err != nil {
		return nil, err
	}
	return pipeline.OpenSearchToRebuild(ctx, f.config(nil))
}

// startPipeline runs every stage in this process on the flags' services: what the one-shot
// commands (harvest, replay) run their jobs on. It returns once the stages are running.
func (f *serviceFlags) startPipeline(ctx context.Context) (*pipeline.Pipeline, error) {
	logger, err := f.logger()
	if err != nil {
		return nil, err
	}
	if err := f.checkSearchIndex(); err != nil {
		return nil, err
	}
	cfg := f.config(logger)
	cfg.Stages = pipeline.StageNames()
	return startConfig(ctx, cfg)
}

// startConfig builds the pipeline of cfg and starts it; a configuration error is a usage
// error.
func startConfig(ctx context.Context, cfg pipeline.Config) (*pipeline.Pipeline, error) {
	p, err := pipeline.New(ctx, cfg)
	if errors.Is(err, pipeline.ErrConfig) {
		return nil, usageError{err}
	}
	if err != nil {
		return nil, err
	}
	if err := p.Start(ctx); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func migrateCommand() *cobra.Command {
	var f serviceFlags
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the database migrations that have not run yet",
		Long:  "Apply the database migrations that have not run yet.\n\n" + servicesHelp(),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := f.openStore(cmd.Context())
			if err != nil {
				return err
			}
			st.Close()
			fmt.Fprintln(cmd.OutOrStdout(), "database is up to date")
			return nil
		},
	}
	f.register(cmd)
	return cmd
}
