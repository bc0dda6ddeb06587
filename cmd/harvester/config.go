package main

import (
	"cmp"
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
	"github.com/harvester-dev/harvester/search/opensearch"
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
	// envErrs are the environment values the flags' defaults could not read (envErr).
	envErrs []error
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

// registerFetch adds the fetch client's flags; 0 keeps fetch.Config's default.
func (f *serviceFlags) registerFetch(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.DurationVar(&f.fetch.Timeout, "fetch-timeout", f.envDuration("HARVESTER_FETCH_TIMEOUT", 0),
		"longest one download may take, body included (env HARVESTER_FETCH_TIMEOUT; default 10m)")
	fl.Int64Var(&f.fetch.MaxBytes, "fetch-max-bytes", f.envInt64("HARVESTER_FETCH_MAX_BYTES", 0),
		"size cap of a downloaded document in bytes, after decompression; a larger one fails the job "+
			"(env HARVESTER_FETCH_MAX_BYTES; default 1 GiB)")
	fl.IntVar(&f.fetch.Attempts, "fetch-attempts", f.envInt("HARVESTER_FETCH_ATTEMPTS", 0),
		"tries of one download on a network error, timeout, 429 or 5xx (env HARVESTER_FETCH_ATTEMPTS; default 10)")
	fl.DurationVar(&f.fetch.RetryBudget, "fetch-retry-budget", f.envDuration("HARVESTER_FETCH_RETRY_BUDGET", 0),
		"no retry of a download starts later than this after its first try (env HARVESTER_FETCH_RETRY_BUDGET; default 2m)")
	fl.IntVar(&f.fetch.MaxRedirects, "fetch-max-redirects", f.envInt("HARVESTER_FETCH_MAX_REDIRECTS", 0),
		"redirects one download follows; more is a job error (env HARVESTER_FETCH_MAX_REDIRECTS; default 10)")
	fl.IntVar(&f.fetch.MaxPerHost, "fetch-max-per-host", f.envInt("HARVESTER_FETCH_MAX_PER_HOST", 0),
		"downloads from one host at a time in this process, over all jobs (env HARVESTER_FETCH_MAX_PER_HOST; default 4)")
	fl.IntVar(&f.maxRecordBytes, "max-record-bytes", f.envInt("HARVESTER_MAX_RECORD_BYTES", 0),
		"size cap of one record in bytes (a data.json dataset, a portal item, or an XML file after decompression); "+
			"a larger one is an error row and is not read further; also the cap of one RDF term (one JSON-LD node "+
			"object may be twice it) (env HARVESTER_MAX_RECORD_BYTES; default 16 MiB)")
	fl.IntVar(&f.maxRDFPages, "max-rdf-pages", f.envInt("HARVESTER_MAX_RDF_PAGES", 0),
		"most pages of a paged (Hydra) rdf source; more is a job error, and nothing is deleted "+
			"(env HARVESTER_MAX_RDF_PAGES; default 10000)")
	fl.IntVar(&f.rdfMemTriples, "rdf-mem-triples", f.envInt("HARVESTER_RDF_MEM_TRIPLES", 0),
		"triples of an rdf source's graph kept in memory; past that it moves to a temporary file "+
			"(env HARVESTER_RDF_MEM_TRIPLES; default 50000)")
	fl.IntVar(&f.jobWindow, "job-window", f.envInt("HARVESTER_JOB_WINDOW", 0),
		"most records of one job in flight between EXTRACT and the aggregator; a listing that far ahead waits, "+
			"so jobs running at once share the stages (env HARVESTER_JOB_WINDOW; default 500; -1: no cap)")
	fl.StringVar(&f.userAgent, "user-agent", os.Getenv("HARVESTER_USER_AGENT"),
		"the operator's contact URL (https://… or mailto:…), named in the User-Agent of every request, fetching "+
			"sources and checking links alike: \"Harvester/<version> (+URL; open-data metadata harvester)\" "+
			"(env HARVESTER_USER_AGENT; default: no contact)")
	fl.StringVar(&f.fetchProxy, "fetch-proxy", os.Getenv("HARVESTER_FETCH_PROXY"),
		"HTTP proxy of every download, e.g. http://proxy.internal:3128 (env HARVESTER_FETCH_PROXY); "+
			"empty: direct connections, HTTP_PROXY and HTTPS_PROXY are ignored")
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

func (f *serviceFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.databaseURL, "database-url", os.Getenv("DATABASE_URL"),
		"Postgres URL, e.g. postgres://user@host:5432/harvester (env DATABASE_URL); empty: SQLite in --data-dir")
	cmd.Flags().StringVar(&f.natsURL, "nats-url", os.Getenv("NATS_URL"),
		"NATS server with JetStream, e.g. nats://127.0.0.1:4222, or every server of a JetStream cluster, comma-separated "+
			"(env NATS_URL); empty: in-process server in --data-dir")
	cmd.Flags().IntVar(&f.streamReplicas, "stream-replicas", f.envInt("HARVESTER_STREAM_REPLICAS", 1),
		"how many servers of the JetStream cluster keep each of Harvester's streams and consumers, 1 to 5; "+
			"3 on a 3-node cluster survives losing any one node; every process must use the same (env HARVESTER_STREAM_REPLICAS)")
	cmd.Flags().StringVar(&f.natsPrefix, "nats-prefix", cmp.Or(os.Getenv("HARVESTER_NATS_PREFIX"), router.DefaultPrefix),
		"the deployment's name on the NATS server: its streams, consumers and subjects (P_HARVEST_WORK, P.harvest.v1.*); "+
			"each deployment sharing a NATS server needs its own, and every process of one deployment the same; "+
			router.DefaultPrefix+" keeps the names without a prefix (env HARVESTER_NATS_PREFIX)")
	cmd.Flags().StringVar(&f.dataDir, "data-dir", cmp.Or(os.Getenv("HARVESTER_DATA_DIR"), "harvester-data"),
		"where the embedded default keeps its SQLite database, JetStream data and bleve index; one process at a time "+
			"may run its in-process NATS server or bleve index, a second one is refused naming the first (env HARVESTER_DATA_DIR)")
	cmd.Flags().StringVar(&f.logLevel, "log-level", "warn", "log level: debug, info, warn or error")
	cmd.Flags().BoolVar(&f.allowPrivate, "allow-private-sources", f.envBool("HARVESTER_ALLOW_PRIVATE_SOURCES"),
		"fetch sources on loopback, private and link-local addresses, refused by default "+
			"(env HARVESTER_ALLOW_PRIVATE_SOURCES=1)")
	cmd.Flags().StringVar(&f.opensearchURL, "opensearch-url", os.Getenv("OPENSEARCH_URL"),
		"OpenSearch node for the search index, e.g. http://127.0.0.1:9200 (env OPENSEARCH_URL); "+
			"empty: a bleve index in --data-dir/search, which only one process may hold")
	cmd.Flags().StringVar(&f.searchIndex, "search-index", cmp.Or(os.Getenv("HARVESTER_SEARCH_INDEX"), opensearch.DefaultAlias),
		"name of the search index: the OpenSearch alias or the bleve directory, lower case by OpenSearch's index naming rule "+
			"on both setups; none keeps no index (env HARVESTER_SEARCH_INDEX)")
	cmd.Flags().Float64Var(&f.maxDeleteShare, "max-delete-share", f.envFloat("HARVESTER_MAX_DELETE_SHARE", 0.5),
		"a harvest job that would delete more than this share of a source's datasets fails and deletes nothing "+
			"(force_harvest and clear are not bound; env HARVESTER_MAX_DELETE_SHARE)")
	cmd.Flags().StringVar(&f.languages, "languages", cmp.Or(os.Getenv("HARVESTER_LANGUAGES"), "en"),
		"language preference for the language-tagged literals of DCAT-AP records, most wanted first, e.g. nb,nn,en; "+
			"a source's languages option wins (env HARVESTER_LANGUAGES)")
	f.registerFetch(cmd)
	f.registerRetention(cmd)
	cmd.PreRunE = func(*cobra.Command, []string) error { return f.envErr() }
}

// servicesHelp says which services a command will use, read from the environment, and how to
// point it at others.
func servicesHelp() string {
	dir := cmp.Or(os.Getenv("HARVESTER_DATA_DIR"), "harvester-data")
	db := "SQLite database " + filepath.Join(dir, "harvester.db") + " (set DATABASE_URL or --database-url to use Postgres)"
	if os.Getenv("DATABASE_URL") != "" {
		db = "Postgres from DATABASE_URL (unset it to use SQLite in the data directory)"
	}
	bus := "an in-process nats-server with JetStream storing in " + filepath.Join(dir, "nats") +
		" (set NATS_URL or --nats-url to use a NATS server)"
	if os.Getenv("NATS_URL") != "" {
		bus = "the NATS server at NATS_URL (unset it to run one in-process)"
	}
	index := envSearchLocation(dir) + " (set OPENSEARCH_URL or --opensearch-url to use OpenSearch)"
	if os.Getenv("OPENSEARCH_URL") != "" {
		index = "OpenSearch at OPENSEARCH_URL"
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
