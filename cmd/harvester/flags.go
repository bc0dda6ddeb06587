package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/stages/check"
)

// flagSpec is one row of the CLI's table of settings: a flag, the environment variable that
// gives its default, the default, and the help. Each flag (and each variable) is written here
// once; commands register the rows they take by id (bind), so each command's help lists only
// its own flags, and the help's "(env NAME; default …)" note is written from the row.
type flagSpec struct {
	// id names the row; it is the flag's name unless two commands take different flags of
	// the same name (serve's --addr and healthcheck's).
	id string
	// flag is the flag's name; "" for a setting given by its environment variable only.
	flag string
	// env is the environment variable whose value is the default ("" for none). A value that
	// does not parse is an error naming the variable (flagEnv.envErr).
	env string
	// def is the default without the variable: its type is the flag's (string, int, int64,
	// bool, float64, time.Duration); nil for a flag of its own pflag.Value type.
	def any
	// help is the flag's help, without the note.
	help string
	// note says the default where the help would not show it (a 0 that means a package's
	// default: "default 10m"; a default the value type prints not: "default 90d").
	note string
	// secret: the variable's value is never the flag's default, which the help prints; the
	// command reads the variable itself when the flag is not given.
	secret bool
}

// flagTable is every flag that has an environment variable or that several commands share,
// and the settings given by environment only. A command's own flags without a variable (e.g.
// harvest's --url, the read commands' --limit) are registered with the command.
var flagTable = []flagSpec{
	// The services every command that runs stages connects to (serviceFlags).
	{id: "database-url", env: "DATABASE_URL", def: "",
		help: "Postgres URL, e.g. postgres://user@host:5432/harvester; empty: SQLite in --data-dir"},
	{id: "nats-url", env: "NATS_URL", def: "",
		help: "NATS server with JetStream, e.g. nats://127.0.0.1:4222, or every server of a JetStream cluster, " +
			"comma-separated; empty: in-process server in --data-dir"},
	{id: "stream-replicas", env: "HARVESTER_STREAM_REPLICAS", def: 1,
		help: "how many servers of the JetStream cluster keep each of Harvester's streams and consumers, 1 to 5; " +
			"3 on a 3-node cluster survives losing any one node; every process must use the same"},
	{id: "nats-prefix", env: "HARVESTER_NATS_PREFIX", def: router.DefaultPrefix,
		help: "the deployment's name on the NATS server: its streams, consumers and subjects (P_HARVEST_WORK, " +
			"P.harvest.v1.*); each deployment sharing a NATS server needs its own, and every process of one " +
			"deployment the same; " + router.DefaultPrefix + " keeps the names without a prefix"},
	{id: "data-dir", env: "HARVESTER_DATA_DIR", def: "harvester-data",
		help: "where the embedded default keeps its SQLite database, JetStream data and bleve index; one process at " +
			"a time may run its in-process NATS server or bleve index, a second one is refused naming the first"},
	{id: "log-level", def: "warn", help: "log level: debug, info, warn or error"},
	{id: "allow-private-sources", env: "HARVESTER_ALLOW_PRIVATE_SOURCES", def: false,
		help: "fetch sources on loopback, private and link-local addresses, refused by default"},
	{id: "opensearch-url", env: "OPENSEARCH_URL", def: "",
		help: "OpenSearch node for the search index, e.g. http://127.0.0.1:9200; empty: a bleve index in " +
			"--data-dir/search, which only one process may hold"},
	{id: "search-index", env: "HARVESTER_SEARCH_INDEX", def: opensearch.DefaultAlias,
		help: "name of the search index: the OpenSearch alias or the bleve directory, lower case by OpenSearch's " +
			"index naming rule on both setups; none keeps no index"},
	{id: "max-delete-share", env: "HARVESTER_MAX_DELETE_SHARE", def: 0.5,
		help: "a harvest job that would delete more than this share of a source's datasets fails and deletes " +
			"nothing (force_harvest and clear are not bound)"},
	{id: "languages", env: "HARVESTER_LANGUAGES", def: "en",
		help: "language preference for the language-tagged literals of DCAT-AP records, most wanted first, e.g. " +
			"nb,nn,en; a source's languages option wins"},
	{id: "retention", env: "HARVESTER_RETENTION", note: "default 90d",
		help: "how long the history is kept: record versions superseded longer ago and jobs finished longer ago go " +
			"(a dataset's record, the newest of each record and each source's 20 newest jobs never do), and so do " +
			"failed messages older than it; the scheduler's leader prunes every hour; 0 keeps everything; every " +
			"process must use the same"},

	// Fetching (serviceFlags.fetch); 0 keeps fetch.Config's default.
	{id: "fetch-timeout", env: "HARVESTER_FETCH_TIMEOUT", def: time.Duration(0), note: "default 10m",
		help: "longest one download may take, body included"},
	{id: "fetch-max-bytes", env: "HARVESTER_FETCH_MAX_BYTES", def: int64(0), note: "default 1 GiB",
		help: "size cap of a downloaded document in bytes, after decompression; a larger one fails the job"},
	{id: "fetch-attempts", env: "HARVESTER_FETCH_ATTEMPTS", def: 0, note: "default 10",
		help: "tries of one download on a network error, timeout, 429 or 5xx"},
	{id: "fetch-retry-budget", env: "HARVESTER_FETCH_RETRY_BUDGET", def: time.Duration(0), note: "default 2m",
		help: "no retry of a download starts later than this after its first try"},
	{id: "fetch-max-redirects", env: "HARVESTER_FETCH_MAX_REDIRECTS", def: 0, note: "default 10",
		help: "redirects one download follows; more is a job error"},
	{id: "fetch-max-per-host", env: "HARVESTER_FETCH_MAX_PER_HOST", def: 0, note: "default 4",
		help: "downloads from one host at a time in this process, over all jobs"},
	{id: "max-record-bytes", env: "HARVESTER_MAX_RECORD_BYTES", def: 0, note: "default 16 MiB",
		help: "size cap of one record in bytes (a data.json dataset, a portal item, or an XML file after " +
			"decompression); a larger one is an error row and is not read further; also the cap of one RDF term " +
			"(one JSON-LD node object may be twice it)"},
	{id: "max-rdf-pages", env: "HARVESTER_MAX_RDF_PAGES", def: 0, note: "default 10000",
		help: "most pages of a paged (Hydra) rdf source; more is a job error, and nothing is deleted"},
	{id: "rdf-mem-triples", env: "HARVESTER_RDF_MEM_TRIPLES", def: 0, note: "default 50000",
		help: "triples of an rdf source's graph kept in memory; past that it moves to a temporary file"},
	{id: "job-window", env: "HARVESTER_JOB_WINDOW", def: 0, note: "default 500; -1: no cap",
		help: "most records of one job in flight between EXTRACT and the aggregator; a listing that far ahead " +
			"waits, so jobs running at once share the stages"},
	{id: "fetch-proxy", env: "HARVESTER_FETCH_PROXY", def: "",
		help: "HTTP proxy of every download, e.g. http://proxy.internal:3128; empty: direct connections, " +
			"HTTP_PROXY and HTTPS_PROXY are ignored"},

	// The long-running commands (serverFlags).
	{id: "addr", env: "HARVESTER_ADDR", def: "127.0.0.1:8080",
		help: "where the web UI (/), the API, /healthz, /readyz and /metrics listen"},
	{id: "probe-addr", flag: "addr", def: "",
		help: "where /healthz, /readyz and /metrics listen", note: "default: not served"},
	{id: "ops-addr", env: "HARVESTER_OPS_ADDR", def: "", note: "default: not served apart",
		help: "where /healthz, /readyz and /metrics also listen, on their own, e.g. 0.0.0.0:9090: probes and " +
			"scrapes are answered there while clients fill --addr's connections"},
	{id: "max-jobs", env: "HARVESTER_MAX_JOBS", def: 4, help: "most jobs in progress at once"},
	{id: "orphan-timeout", def: 30 * time.Minute,
		help: "a job in progress with no heartbeat for this long is re-driven (listed again), and after " +
			"--max-redrives ended as error"},
	{id: "max-redrives", env: "HARVESTER_MAX_REDRIVES", def: 3,
		help: "how often an orphaned job is re-driven before it is ended as error; 0: never"},
	{id: "scheduler-interval", def: 2 * time.Second, help: "how often the scheduler looks for due and queued jobs"},
	{id: "concurrency", env: "HARVESTER_CONCURRENCY", def: 4,
		help: "messages of each per-record stage this process handles at once; COMPARE handles 8x, SYNC and the " +
			"job aggregator 16x"},
	{id: "batch-size", env: "HARVESTER_BATCH_SIZE", def: router.DefaultBatchSize,
		help: "most messages a stage handles together: its outputs are confirmed and its inputs acked once per batch"},
	{id: "batch-linger", env: "HARVESTER_BATCH_LINGER", def: router.DefaultBatchLinger,
		help: "how long a batch short of --batch-size waits for more messages; negative: not at all"},
	{id: "pprof-addr", env: "HARVESTER_PPROF_ADDR", def: "", note: "default: not served",
		help: "where Go's profiler (/debug/pprof/) listens, e.g. 127.0.0.1:6060; keep it private"},
	{id: "local-files", env: "HARVESTER_LOCAL_FILES", def: false,
		help: "read sources whose location is a local file path (made by harvest --file); refused by default, so " +
			"that a stored source's url never reads this machine's files"},
	{id: "user-agent", env: "HARVESTER_USER_AGENT", def: "", note: "default: no contact",
		help: "the operator's contact URL (https://… or mailto:…), named in the User-Agent of every request, fetching " +
			"sources and checking links alike: \"Harvester/<version> (+URL; open-data metadata harvester)\""},
	{id: "link-checks", env: "HARVESTER_LINK_CHECKS", def: true,
		help: "check the distribution URLs (accessURL, downloadURL) of the datasets SYNC adds or changes, and the " +
			"leader those of stale checks (CHECK, --stages check); --link-checks=false checks none"},
	{id: "link-recheck", env: "HARVESTER_LINK_RECHECK", def: check.DefaultRecheck,
		help: "a URL checked longer ago than this is checked again: the scheduler's leader queues it, and SYNC's " +
			"changed datasets do not check it sooner"},
	{id: "link-host-concurrency", env: "HARVESTER_LINK_HOST_CONCURRENCY", def: 2,
		help: "the most link checks in flight to one host, over every process that runs CHECK (each takes 1/n, at least 1)"},
	{id: "link-host-rate", env: "HARVESTER_LINK_HOST_RATE", def: 2.0,
		help: "the most link checks started per second to one host, over every process that runs CHECK (each takes 1/n)"},
	{id: "link-exclude-hosts", env: "HARVESTER_LINK_EXCLUDE_HOSTS", def: "",
		help: "host names whose URLs are never checked, comma-separated, subdomains included, e.g. " +
			"example.org,intranet.gov"},
	{id: "base-url", env: "HARVESTER_BASE_URL", def: "", note: "default: the request's own host",
		help: "the catalog's public address, e.g. https://catalog.example.gov: every link and IRI the feeds, the " +
			"CKAN-compatible API, the public pages and the emails mint starts with it"},
	{id: "private-catalog", env: "HARVESTER_PRIVATE_CATALOG", def: false,
		help: "close the public catalog (data.json, the DCAT-AP feeds, the CKAN-compatible API, the public search " +
			"and dataset pages): they then need the API key or a signed-in operator"},
	{id: "catalog-title", env: "HARVESTER_CATALOG_TITLE", def: "", note: `default "Harvester catalog"`,
		help: "the served catalog's title"},
	{id: "catalog-description", env: "HARVESTER_CATALOG_DESCRIPTION", def: "", help: "the served catalog's description"},
	{id: "catalog-publisher", env: "HARVESTER_CATALOG_PUBLISHER", def: "",
		help: "the name of the served catalog's publisher"},
	{id: "catalog-license", env: "HARVESTER_CATALOG_LICENSE", def: "", help: "the URL of the served catalog's licence"},

	// The HTTP servers' bounds (serverFlags.http); 0 keeps pipeline.HTTPConfig's default.
	{id: "http-read-header-timeout", env: "HARVESTER_HTTP_READ_HEADER_TIMEOUT", def: time.Duration(0),
		note: "default 10s", help: "longest a client may take to send a request's header"},
	{id: "http-read-timeout", env: "HARVESTER_HTTP_READ_TIMEOUT", def: time.Duration(0), note: "default 1m",
		help: "longest a client may take to send a whole request, body included; then its connection is closed"},
	{id: "http-write-timeout", env: "HARVESTER_HTTP_WRITE_TIMEOUT", def: time.Duration(0), note: "default 2m",
		help: "longest from a request's header to the end of its answer; the record errors CSV and validating a " +
			"URL extend it"},
	{id: "http-idle-timeout", env: "HARVESTER_HTTP_IDLE_TIMEOUT", def: time.Duration(0), note: "default 2m",
		help: "how long a kept-alive connection waits for its next request"},
	{id: "http-max-header-bytes", env: "HARVESTER_HTTP_MAX_HEADER_BYTES", def: 0, note: "default 65536",
		help: "size cap of a request's header in bytes"},
	{id: "http-max-conns", env: "HARVESTER_HTTP_MAX_CONNS", def: 0, note: "default 256",
		help: "most HTTP connections open at once; more wait until one closes"},
	{id: "http-max-conns-per-client", env: "HARVESTER_HTTP_MAX_CONNS_PER_CLIENT", def: 0, note: "default 32",
		help: "most HTTP connections one client (an IPv4 address, an IPv6 /64) holds open at once; more are " +
			"answered 429 and closed; --trusted-proxies are not held to it"},
	{id: "trusted-proxies", env: "HARVESTER_TRUSTED_PROXIES", def: "",
		note: "default: none, every client is its TCP peer",
		help: "reverse proxies in front of this server, comma-separated CIDR prefixes or addresses, e.g. " +
			"10.0.0.0/8,192.0.2.7: a request from one of them counts as the client its X-Forwarded-For names (the " +
			"right-most address not in the list), for the limit on wrong API keys"},
	{id: "secure-cookies", env: "HARVESTER_SECURE_COOKIES", def: false,
		help: "mark the web UI's cookies Secure, sent over HTTPS only: set it when the site is served over HTTPS"},

	// Other commands' flags with a variable.
	{id: "auth-header", env: "HARVESTER_AUTH_HEADER", def: "", secret: true,
		help: `a secret header "Name: value" sent only to the source's host; the variable keeps it off the ` +
			`command line, where ps and shell history see it`},
	{id: "healthcheck-addr", flag: "addr", env: "HARVESTER_HEALTHCHECK_ADDR", def: "127.0.0.1:8080",
		help: "host:port of the process to probe"},

	// Settings given by environment only: the API's key, the job report email.
	{id: "api-key", flag: "-", env: "HARVESTER_API_KEY", def: "", help: "the API key that writes (and protected reads) need"},
	{id: "protect-reads", flag: "-", env: "HARVESTER_PROTECT_READS", def: false, help: "reads need the API key too"},
	{id: "smtp-host", flag: "-", env: "HARVESTER_SMTP_HOST", def: "", help: "the SMTP server of the job report emails"},
	{id: "smtp-port", flag: "-", env: "HARVESTER_SMTP_PORT", def: 0, help: "its port"},
	{id: "smtp-username", flag: "-", env: "HARVESTER_SMTP_USERNAME", def: "", help: "its user name"},
	{id: "smtp-password", flag: "-", env: "HARVESTER_SMTP_PASSWORD", def: "", help: "its password"},
	{id: "smtp-from", flag: "-", env: "HARVESTER_SMTP_FROM", def: "", help: "the emails' sender"},
	{id: "smtp-tls", flag: "-", env: "HARVESTER_SMTP_TLS", def: "", help: "starttls, tls, opportunistic or none"},
}

// spec is the table's row id; a missing row is a programming error (TestFlagTable).
func spec(id string) flagSpec {
	for _, s := range flagTable {
		if s.id == id {
			if s.flag == "" {
				s.flag = s.id
			}
			return s
		}
	}
	panic("cmd/harvester: no flag " + id + " in flagTable")
}

// envName is the environment variable of row id.
func envName(id string) string { return spec(id).env }

// usage is the flag's help with its note: "(env NAME; default …)".
func (s flagSpec) usage() string {
	var notes []string
	if s.env != "" {
		notes = append(notes, "env "+s.env)
		if _, ok := s.def.(bool); ok {
			notes[0] += "=1"
		}
	}
	if s.note != "" {
		notes = append(notes, s.note)
	}
	if len(notes) == 0 {
		return s.help
	}
	return s.help + " (" + strings.Join(notes, "; ") + ")"
}

// flagEnv reads the environment variables that give the flags their defaults, and keeps the
// values that do not parse (envErr).
type flagEnv struct {
	// envErrs are the environment values the flags' defaults could not read.
	envErrs []error
}

// bind registers on cmd the flag of row id, stored in ptr (a *string, *int, *int64, *bool,
// *float64 or *time.Duration of the row's default's type, or a pflag.Value), with its default
// from the row's variable when that is set (env*), else the row's.
func (e *flagEnv) bind(cmd *cobra.Command, ptr any, id string) {
	s := spec(id)
	fl, name, usage := cmd.Flags(), s.flag, s.usage()
	switch p := ptr.(type) {
	case *string:
		def := s.def.(string)
		if !s.secret {
			def = e.envString(id)
		}
		fl.StringVar(p, name, def, usage)
	case *int:
		fl.IntVar(p, name, e.envInt(id), usage)
	case *int64:
		fl.Int64Var(p, name, e.envInt64(id), usage)
	case *bool:
		fl.BoolVar(p, name, e.envBool(id), usage)
	case *float64:
		fl.Float64Var(p, name, e.envFloat(id), usage)
	case *time.Duration:
		fl.DurationVar(p, name, e.envDuration(id), usage)
	case pflag.Value:
		if raw := getenv(s.env); raw != "" {
			if err := p.Set(raw); err != nil {
				e.envErrs = append(e.envErrs, fmt.Errorf("%s=%q: %v", s.env, raw, err))
			}
		}
		fl.Var(p, name, usage)
	default:
		panic(fmt.Sprintf("cmd/harvester: flag %s bound to a %T", id, ptr))
	}
}
