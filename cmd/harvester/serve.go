package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/notify"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/scheduler"
)

// parts says which long-running parts a command runs.
type parts struct {
	api, scheduler bool
	stages         []string // nil: none
}

// serverFlags configure the long-running commands (serve, worker, scheduler, api).
type serverFlags struct {
	serviceFlags
	addr          string
	stages        string
	maxJobs       int
	orphanTimeout time.Duration
	maxRedrives   int
	interval      time.Duration
	concurrency   int
	batchSize     int
	batchLinger   time.Duration
	baseURL       string
	smtp          notify.Config
	pprofAddr     string
	localFiles    bool
	// opsAddr is where /healthz, /readyz and /metrics listen on their own (--ops-addr, serve
	// and api only); empty: not served apart from --addr.
	opsAddr string
	// http bounds the HTTP servers at --addr and --ops-addr (0: pipeline.HTTPConfig's
	// defaults); its TrustedProxies are set from trustedProxies by checkHTTP.
	http pipeline.HTTPConfig
	// trustedProxies is --trusted-proxies: CIDR prefixes or addresses, comma-separated.
	trustedProxies string
	// links are the link checker's flags (CHECK, --link-*).
	links linkFlags
	// secureCookies marks the web UI's cookies Secure (--secure-cookies).
	secureCookies bool
	// api is the API's configuration from the environment: HARVESTER_API_KEY, the key writes
	// need, and HARVESTER_PROTECT_READS=1, which makes reads need it too.
	api api.Config
}

// register adds the long-running commands' flags (flagTable): the services', the scheduler's,
// the HTTP servers', the catalog's; withAddr adds --addr and --ops-addr of the public listener
// (else the command adds the probes' --addr itself). The API key and the email come from the
// environment only.
func (f *serverFlags) register(cmd *cobra.Command, withAddr bool) {
	f.serviceFlags.register(cmd)
	if withAddr {
		f.bind(cmd, &f.addr, "addr")
		f.bind(cmd, &f.opsAddr, "ops-addr")
	}
	for _, b := range []struct {
		ptr any
		id  string
	}{
		{&f.maxJobs, "max-jobs"}, {&f.orphanTimeout, "orphan-timeout"}, {&f.maxRedrives, "max-redrives"},
		{&f.interval, "scheduler-interval"}, {&f.concurrency, "concurrency"}, {&f.pprofAddr, "pprof-addr"},
		{&f.localFiles, "local-files"}, {&f.batchSize, "batch-size"}, {&f.batchLinger, "batch-linger"},
	} {
		f.bind(cmd, b.ptr, b.id)
	}
	fl := cmd.Flags()
	// --subscriptions was --concurrency's name when each message in flight had a subscription.
	fl.IntVar(&f.concurrency, "subscriptions", 4, "the old name of --concurrency")
	_ = fl.MarkDeprecated("subscriptions", "use --concurrency")
	f.registerHTTP(cmd)
	f.links.register(cmd, true, &f.flagEnv)
	f.smtp = f.smtpFromEnv()
	f.api = api.Config{APIKey: f.envString("api-key"), ProtectReads: f.envBool("protect-reads")}
	for _, b := range []struct {
		ptr any
		id  string
	}{
		{&f.baseURL, "base-url"}, {&f.api.PrivateCatalog, "private-catalog"}, {&f.api.Catalog.Title, "catalog-title"},
		{&f.api.Catalog.Description, "catalog-description"}, {&f.api.Catalog.Publisher, "catalog-publisher"},
		{&f.api.Catalog.License, "catalog-license"},
	} {
		f.bind(cmd, b.ptr, b.id)
	}
}

// smtpFromEnv is the mail configuration of the HARVESTER_SMTP_* variables (flagTable's smtp-*
// rows; no BaseURL); a config without a host sends no email. An unreadable port is kept for
// envErr.
func (e *flagEnv) smtpFromEnv() notify.Config {
	return notify.Config{Host: e.envString("smtp-host"), Port: e.envInt("smtp-port"),
		Username: e.envString("smtp-username"), Password: e.envString("smtp-password"),
		From: e.envString("smtp-from"), TLS: e.envString("smtp-tls")}
}

// registerHTTP adds the flags that bound the HTTP server at --addr (flagTable); 0 keeps the
// default.
func (f *serverFlags) registerHTTP(cmd *cobra.Command) {
	for _, b := range []struct {
		ptr any
		id  string
	}{
		{&f.http.ReadHeaderTimeout, "http-read-header-timeout"}, {&f.http.ReadTimeout, "http-read-timeout"},
		{&f.http.WriteTimeout, "http-write-timeout"}, {&f.http.IdleTimeout, "http-idle-timeout"},
		{&f.http.MaxHeaderBytes, "http-max-header-bytes"}, {&f.http.MaxConns, "http-max-conns"},
		{&f.http.MaxConnsPerClient, "http-max-conns-per-client"}, {&f.trustedProxies, "trusted-proxies"},
		{&f.secureCookies, "secure-cookies"},
	} {
		f.bind(cmd, b.ptr, b.id)
	}
}

func serveCommand() *cobra.Command {
	var f serverFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the API, the scheduler and every stage in one process",
		Long: `Run the web UI (/), the HTTP API (/api/v1, /healthz, /readyz, /metrics), the scheduler and the stages in one
process: the default for small installations. With --ops-addr, /healthz, /readyz and /metrics
also listen there on their own, for probes and scrapes. Behind a reverse proxy, name it in
--trusted-proxies. Writes need HARVESTER_API_KEY (reads too with
HARVESTER_PROTECT_READS=1). Job report emails go out when HARVESTER_SMTP_HOST and HARVESTER_SMTP_FROM are set (HARVESTER_SMTP_PORT,
HARVESTER_SMTP_USERNAME, HARVESTER_SMTP_PASSWORD, HARVESTER_SMTP_TLS: starttls, tls,
opportunistic or none).

` + servicesHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.runStages(cmd.Context(), parts{api: true, scheduler: true}, false)
		},
	}
	f.register(cmd, true)
	cmd.Flags().StringVar(&f.stages, "stages", "all", "stages to run here, comma-separated, or all or none")
	return cmd
}

// runStages runs p with the stages --stages names (parseStages); with atLeastOne, naming none
// is a usage error (a worker with no stage does nothing).
func (f *serverFlags) runStages(ctx context.Context, p parts, atLeastOne bool) error {
	stages, err := parseStages(f.stages)
	if err != nil {
		return err
	}
	if atLeastOne && len(stages) == 0 {
		return usageError{errors.New("--stages: name at least one stage")}
	}
	p.stages = stages
	return f.run(ctx, p)
}

func workerCommand() *cobra.Command {
	var f serverFlags
	cmd := &cobra.Command{
		Use:   "worker --stages validate,sync",
		Short: "Run only the given stages' consumers, to scale them out",
		Long: `Run only the given stages. Workers of the same stage share its durable JetStream consumer:
each message goes to one of them. Stages: ` + strings.Join(pipeline.StageNames(), ", ") + `.
With --addr, /healthz, /readyz and /metrics are served there.

` + servicesHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.runStages(cmd.Context(), parts{}, true)
		},
	}
	f.register(cmd, false)
	cmd.Flags().StringVar(&f.stages, "stages", "", "stages to run, comma-separated ("+strings.Join(pipeline.StageNames(), ",")+") or all")
	f.bind(cmd, &f.addr, "probe-addr")
	return cmd
}

func schedulerCommand() *cobra.Command {
	return partCommand("scheduler", "Run only the scheduler: due jobs, the cap on jobs in progress, orphan cleanup",
		"Run only the scheduler. Several may run; one is active at a time (leader election).\n"+
			"With --addr, /healthz, /readyz and /metrics are served there.",
		parts{scheduler: true}, false)
}

func apiCommand() *cobra.Command {
	return partCommand("api", "Run only the HTTP API and the web UI",
		"Run only the HTTP API (/api/v1) and the web UI (/); queued jobs start when a scheduler runs.", parts{api: true}, true)
}

// partCommand is a command that runs fixed parts, with the shared server flags.
func partCommand(use, short, long string, p parts, withAddr bool) *cobra.Command {
	var f serverFlags
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long + "\n\n" + servicesHelp(),
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return f.run(cmd.Context(), p) },
	}
	f.register(cmd, withAddr)
	if !withAddr {
		f.bind(cmd, &f.addr, "probe-addr")
	}
	return cmd
}

// parseStages reads a --stages value: all, none, or names.
func parseStages(s string) ([]string, error) {
	switch strings.TrimSpace(s) {
	case "all":
		return pipeline.StageNames(), nil
	case "", "none":
		return nil, nil
	}
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, known := range pipeline.StageNames() {
			found = found || known == name
		}
		if !found {
			return nil, usageError{fmt.Errorf("--stages: unknown stage %q (want %s)", name, strings.Join(pipeline.StageNames(), ", "))}
		}
		out = append(out, name)
	}
	return out, nil
}

// run starts the parts, serves until ctx ends (a signal), then stops them in reverse order.
func (f *serverFlags) run(ctx context.Context, p parts) error {
	logger, err := f.logger()
	if err != nil {
		return err
	}
	if err := f.checkSearchIndex(); err != nil {
		return err
	}
	if err := f.checkHTTP(); err != nil {
		return err
	}
	if f.links.on {
		if _, err := f.links.config(f.links.recheck); err != nil {
			return err
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	cfg := f.pipelineConfig(logger, p)
	cfg.Registry = reg
	errc := make(chan error, 1)
	if f.pprofAddr != "" {
		stop, err := servePprof(f.pprofAddr, errc)
		if err != nil {
			return err
		}
		defer stop()
		logger.Info("profiler listening", "addr", f.pprofAddr)
	}
	pl, err := startConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pl.Close()
	if slices.Contains(cfg.Stages, pipeline.StageSync) || cfg.API != nil { // the parts that open the index
		fmt.Fprintf(os.Stderr, "harvester: search index: %s\n", searchLocation(cfg))
	}
	if addr := pl.Addr(); addr != nil {
		fmt.Fprintf(os.Stderr, "harvester: listening on http://%s\n", addr)
	}
	if addr := pl.OpsAddr(); addr != nil {
		fmt.Fprintf(os.Stderr, "harvester: /healthz, /readyz and /metrics also on http://%s\n", addr)
	}
	select {
	case <-ctx.Done():
		return nil
	case err = <-errc:
	case err = <-pl.Err():
	}
	if err == nil || errors.Is(err, http.ErrServerClosed) || ctx.Err() != nil {
		return nil
	}
	return err
}

// pipelineConfig is the pipeline that runs the parts p, from the flags.
func (f *serverFlags) pipelineConfig(logger *slog.Logger, p parts) pipeline.Config {
	cfg := f.config(logger)
	cfg.Stages, cfg.Concurrency, cfg.Addr, cfg.OpsAddr = p.stages, f.concurrency, f.addr, f.opsAddr
	cfg.BatchSize, cfg.BatchLinger = f.batchSize, f.batchLinger
	if f.links.on {
		cfg.LinkChecks, _ = f.links.config(f.links.recheck) // checked by run
	} else if cfg.Stages != nil { // no link checks: no CHECK either, which would still score each job's source
		cfg.Stages = slices.DeleteFunc(slices.Clone(cfg.Stages), func(s string) bool { return s == pipeline.StageCheck })
	}
	cfg.HTTP, cfg.SecureCookies = f.http, f.secureCookies
	cfg.RefuseLocalFiles = !f.localFiles
	if len(p.stages) > 0 {
		mail := f.mailConfig()
		cfg.Mail = &mail
	}
	if p.scheduler {
		cfg.Scheduler = &scheduler.Config{Interval: f.interval, MaxInProgress: f.maxJobs,
			OrphanTimeout: f.orphanTimeout, MaxRedrives: cmp.Or(f.maxRedrives, -1)}
	}
	if p.api && f.addr != "" {
		c := f.api
		c.Catalog.BaseURL = f.baseURL
		cfg.API = &c
	}
	return cfg
}

// checkHTTP reads --trusted-proxies into the HTTP bounds.
func (f *serverFlags) checkHTTP() error {
	f.http.TrustedProxies = nil
	for _, s := range strings.Split(f.trustedProxies, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			addr, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return usageError{fmt.Errorf("--trusted-proxies: %q is not an IP address or a CIDR prefix such as 10.0.0.0/8", s)}
			}
			addr = addr.WithZone("")
			p = netip.PrefixFrom(addr, addr.BitLen())
		}
		if p.Addr().Is4In6() && p.Bits() >= 96 { // clients are matched as IPv4 (api.Trusted)
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		f.http.TrustedProxies = append(f.http.TrustedProxies, p.Masked())
	}
	return nil
}

func (f *serverFlags) mailConfig() notify.Config {
	c := f.smtp
	c.BaseURL = f.baseURL
	return c
}

func shutdown(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
}

// servePprof serves net/http/pprof's handlers on their own listener at addr, apart from the
// API: profiles show internals and must not be public. A serve error goes to errc; the
// returned func stops the server.
func servePprof(addr string, errc chan<- error) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof-addr: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { errc <- srv.Serve(ln) }()
	return func() { shutdown(srv) }, nil
}
