// Command bench is Harvester's benchmark harness (`go run ./bench`).
//
// It builds a synthetic DCAT-US 1.1 federal catalog of -records records (default 100,000) from
// valid records of the real corpus (../shared/corpus), each with a unique identifier and title,
// serves it from a local HTTP server, and runs a `harvester serve` process built from
// ./cmd/harvester against real Postgres (a scratch database on the server of -database-url,
// dropped afterwards) and JetStream (a nats-server of its own, or -nats-url), or with -embedded
// against the embedded default (SQLite and an in-process nats-server). Scenarios, each in a
// fresh harvester process so that its peak RSS (VmHWM) is its own:
//
//	first_harvest    every record added
//	reharvest        the same catalog: every record unchanged
//	force_harvest    every record updated
//	partial_change   10% of the records changed: updated, the rest unchanged
//	first_harvest_check  a first harvest of another -records records with CHECK on, their
//	                 distribution URLs on 250 loopback hosts (links.go): records/s against
//	                 first_harvest's, and how long until the job's link checks settled
//	fleet            200 sources triggered at once (one of 50,000 records, 199 of 250): wall
//	                 time, records/s and the small sources' job times (p50, p95, max)
//	small_sources    50 sources of 200 records one after another: the median job time
//
// (-scenarios picks some; the fleet's sizes scale with -records, see fleetOptions.)
//
// Before them it measures the ceilings on the same machine and services: raw JetStream publish
// → consume → ack of N messages with nats.go (PublishAsync, batched pull, Ack), Postgres
// upserts of N dataset-shaped rows (COPY + INSERT … ON CONFLICT, batches of 500; the row-at-a-
// time upsert and the hash lookups compare does are timed alongside), DCAT-US schema validation
// and canonical hashing of N records (on every core). Each scenario is also given as a fraction
// of the lowest ceiling. Every scenario and ceiling gives its CPU time a record (the harvester's
// or, for a ceiling, the bench process's, the nats-server's and the Postgres backends') and that
// over ceiling_pipeline's (the sum of its components' CPU a record, five hops counted): the
// ratio holds across machine speeds and under load, where records/s does not.
//
// Output: a table, or with -json one JSON object per line per scenario and ceiling:
// {"scenario": "first_harvest", "records": N, "records_per_sec": X, "wall_s": S,
// "peak_rss_mib": M, "stages": {...}, ...}. A scenario whose job does not complete with exactly
// the expected counts makes the command exit with status 1 (the CI smoke run relies on it);
// speed is reported, never asserted. With -profile-dir DIR each scenario leaves the harvester's
// CPU profile over the job and its heap profile at the end in DIR (<scenario>.cpu.pprof,
// <scenario>.heap.pprof).
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/harvester-dev/harvester/harvest"
)

type options struct {
	records, workers     int
	json, embedded       bool
	databaseURL, natsURL string
	corpus, pprofAddr    string
	profileDir           string
	opensearchURL        string
	searchIndex          string
	skipCeilings         bool
	jobWindow            int
	timeout              time.Duration
	// scenarios are the scenarios to run, in allScenarios' order.
	scenarios []string
	fleet     fleetOptions
}

func main() {
	var o options
	flag.IntVar(&o.records, "records", 100_000, "records in the synthetic catalog")
	flag.IntVar(&o.workers, "workers", 4, "the harvester's --concurrency: messages of each per-record stage handled at once")
	flag.BoolVar(&o.json, "json", false, "print one JSON object per line per scenario instead of a table")
	flag.BoolVar(&o.embedded, "embedded", false, "run the harvester on the embedded default (SQLite, in-process NATS)")
	flag.StringVar(&o.databaseURL, "database-url", cmp.Or(os.Getenv("DATABASE_URL"), os.Getenv("HARVESTER_TEST_DATABASE_URL")),
		"Postgres server for a scratch database (env DATABASE_URL, then HARVESTER_TEST_DATABASE_URL)")
	flag.StringVar(&o.natsURL, "nats-url", "", "NATS server with JetStream to use (default: start nats-server from PATH)")
	flag.StringVar(&o.corpus, "corpus", "../shared/corpus", "the corpus directory")
	flag.StringVar(&o.opensearchURL, "opensearch-url", "", "OpenSearch node for the harvester's search index (default: the embedded bleve index)")
	flag.StringVar(&o.searchIndex, "search-index", "", "the harvester's --search-index: an index name, or none to keep no search index")
	flag.StringVar(&o.pprofAddr, "pprof-addr", "", "serve the harvester's profiler here (its --pprof-addr), to profile a scenario while it runs")
	flag.StringVar(&o.profileDir, "profile-dir", "", "write a CPU and a heap profile of the harvester per scenario here (<scenario>.cpu.pprof, <scenario>.heap.pprof)")
	flag.BoolVar(&o.skipCeilings, "skip-ceilings", false, "run the scenarios only")
	flag.IntVar(&o.jobWindow, "job-window", 0, "the harvester's --job-window (0: its default; -1: no cap)")
	flag.DurationVar(&o.timeout, "timeout", 2*time.Hour, "give up after this long")
	scenarios := flag.String("scenarios", strings.Join(allScenarios, ","), "the scenarios to run, comma-separated "+
		"(reharvest, force_harvest and partial_change follow first_harvest)")
	o.fleet.flags(flag.CommandLine)
	flag.Parse()
	var err error
	if o.scenarios, err = parseScenarios(*scenarios); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	o.fleet = o.fleet.withDefaults(o.records)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// result is one line of output: a scenario or a ceiling.
type result struct {
	Scenario      string  `json:"scenario"`
	Records       int     `json:"records"`
	RecordsPerSec float64 `json:"records_per_sec"`
	WallS         float64 `json:"wall_s"`
	PeakRSSMiB    float64 `json:"peak_rss_mib,omitempty"`
	// PeakRSSAnonMiB and PeakRSSFileMiB split the resident set, sampled every 100 ms: anonymous
	// memory (heap, stacks) and mapped file pages (the bleve index's segments).
	PeakRSSAnonMiB float64 `json:"peak_rss_anon_mib,omitempty"`
	PeakRSSFileMiB float64 `json:"peak_rss_file_mib,omitempty"`
	// CPUMsPerRecord is the CPU time the harvester, the bench's nats-server and the scratch
	// database's Postgres backends spent over the job, per record (cpu.go).
	CPUMsPerRecord *cpuPerRecord `json:"cpu_ms_per_record,omitempty"`
	// CPUOfCeiling is CPUMsPerRecord.Total over ceiling_pipeline's: the figure that holds
	// across machine speeds and load (issue 37), where records/s alone does not.
	CPUOfCeiling float64 `json:"cpu_of_ceiling_pipeline,omitempty"`
	// OfLowestCeiling is RecordsPerSec over the lowest ceiling's; LowestCeiling names it.
	OfLowestCeiling float64                   `json:"of_lowest_ceiling,omitempty"`
	LowestCeiling   string                    `json:"lowest_ceiling,omitempty"`
	Status          string                    `json:"status,omitempty"`
	Counts          *harvest.Counts           `json:"counts,omitempty"`
	Stages          map[string]*stageStat     `json:"stages,omitempty"`
	Workers         int                       `json:"workers,omitempty"`
	Store           string                    `json:"store,omitempty"`
	SearchIndex     string                    `json:"search_index,omitempty"` // bleve, opensearch or none
	Alternatives    map[string]map[string]any `json:"alternatives,omitempty"`
	// Jobs and the fields below are the fleet and small_sources scenarios': see fleet.go.
	Jobs int `json:"jobs,omitempty"`
	// OfFirstHarvest is RecordsPerSec over first_harvest's of the same run.
	OfFirstHarvest float64 `json:"of_first_harvest,omitempty"`
	// ChecksSettledS (first_harvest_check) is the time from the job's start until its link
	// checks settled (its quality report kept); LinkChecksPerSec the link hosts' requests over
	// that time.
	ChecksSettledS   float64 `json:"checks_settled_s,omitempty"`
	LinkChecksPerSec float64 `json:"link_checks_per_sec,omitempty"`
	// SmallJobS is the distribution of the small sources' job times (trigger to complete, in
	// seconds, by the database's clock): p50, p95, max; BigJobS the big source's.
	SmallJobS *distribution `json:"small_job_s,omitempty"`
	BigJobS   float64       `json:"big_job_s,omitempty"`

	started time.Time // when the scenario's job was started
}

// bench is one run of the harness: the built harvester, the services it runs on, the catalog
// server, and what the scenarios found so far.
type bench struct {
	o        options
	bin      string
	svc      services
	out      *printer
	catalogs *catalogServer
	lowest   result // the lowest ceiling; its Scenario is "" when none was measured
	// ceilingCPU is ceiling_pipeline's CPU a record in ms; 0 when not measured.
	ceilingCPU float64
	storeName  string // postgres+jetstream or sqlite+embedded-nats
	searchName string // bleve, opensearch or none
	// firstHarvest is first_harvest's result once it ran; failed lists the jobs whose counts
	// were wrong.
	firstHarvest *result
	failed       []string
}

func run(ctx context.Context, o options, stdout io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "harvester-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b := &bench{o: o, out: newPrinter(stdout, o.json), storeName: o.storeName(), searchName: o.searchName()}

	// The harvester binary, built from this checkout.
	b.bin = filepath.Join(tmp, "harvester")
	build := exec.CommandContext(ctx, "go", "build", "-o", b.bin, "./cmd/harvester")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build ./cmd/harvester: %w", err)
	}
	templates, err := loadTemplates(o.corpus)
	if err != nil {
		return err
	}
	if b.catalogs, err = serveCatalogs(tmp, templates, o); err != nil {
		return err
	}
	defer b.catalogs.stop()
	ceilingNATS, stopServices, err := b.startServices(ctx, tmp)
	defer stopServices()
	if err != nil {
		return err
	}
	var ceilings []result
	if !o.skipCeilings {
		if ceilings, err = measureCeilings(ctx, o, templates, ceilingNATS, b.svc.natsPID, b.svc.databaseURL); err != nil {
			return err
		}
		for _, c := range ceilings {
			if c.Scenario == "ceiling_pipeline" && c.CPUMsPerRecord != nil {
				b.ceilingCPU = c.CPUMsPerRecord.Total
			}
		}
		for _, c := range ceilings {
			b.cpuRatio(&c)
			b.out.print(c)
		}
	}
	b.lowest = slices.MinFunc(append([]result{{RecordsPerSec: math.Inf(1)}}, ceilings...), func(a, b result) int {
		return cmp.Compare(a.RecordsPerSec, b.RecordsPerSec)
	})
	if err := b.oneSourceScenarios(ctx); err != nil {
		return err
	}
	if err := b.checkScenario(ctx); err != nil {
		return err
	}
	if err := b.fleetScenarios(ctx); err != nil {
		return err
	}
	b.out.flush()
	if len(b.failed) > 0 {
		return fmt.Errorf("wrong counts:\n  %s", joinLines(b.failed))
	}
	return nil
}

// check refuses options the harness cannot run with, and creates the profile directory.
func (o options) check() error {
	if o.records < changedEvery {
		return fmt.Errorf("-records %d: want at least %d", o.records, changedEvery)
	}
	if o.workers < 1 {
		return fmt.Errorf("-workers %d: want at least 1", o.workers)
	}
	if !o.embedded && o.databaseURL == "" {
		return errors.New("no Postgres: set -database-url or DATABASE_URL (eval \"$(scripts/services.sh)\"), or use -embedded")
	}
	if o.profileDir != "" {
		if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
			return fmt.Errorf("-profile-dir: %w", err)
		}
	}
	return nil
}

// storeName names the store and broker the harvester runs on, for the results.
func (o options) storeName() string {
	if o.embedded {
		return "sqlite+embedded-nats"
	}
	return "postgres+jetstream"
}

// searchName names the harvester's search index, for the results.
func (o options) searchName() string {
	switch {
	case o.searchIndex == "none":
		return "none"
	case o.opensearchURL != "":
		return "opensearch"
	}
	return "bleve"
}

// startServices starts what the harvester runs on (a scratch database and a NATS server, or
// with -embedded nothing but a NATS server for the JetStream ceiling) into b.svc, and returns
// the NATS URL the ceilings use and what stops the services (also to call on an error).
func (b *bench) startServices(ctx context.Context, tmp string) (ceilingNATS string, stop func(), err error) {
	o := b.o
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	b.svc = services{dataDir: filepath.Join(tmp, "data"), concurrency: o.workers, pprofAddr: o.pprofAddr,
		opensearchURL: o.opensearchURL, searchIndex: o.searchIndex, jobWindow: o.jobWindow}
	if o.embedded {
		url, stopNATS, err := startEmbeddedNATS(filepath.Join(tmp, "ceiling-nats"))
		if err != nil {
			return "", stop, err
		}
		stops = append(stops, stopNATS)
		return url, stop, nil
	}
	db, drop, err := scratchDatabase(ctx, o.databaseURL)
	if err != nil {
		return "", stop, err
	}
	stops = append(stops, drop)
	b.svc.databaseURL = db
	b.svc.natsURL = o.natsURL
	if b.svc.natsURL == "" {
		ns, err := startNATS(tmp)
		if err != nil {
			return "", stop, err
		}
		stops = append(stops, ns.stop)
		b.svc.natsURL, b.svc.natsPID = ns.url, ns.cmd.Process.Pid
	}
	return b.svc.natsURL, stop, nil
}

// label sets the fields every scenario's result shares, and its rate against the lowest
// ceiling.
func (b *bench) label(res *result, name string) {
	res.Scenario, res.Workers, res.Store, res.SearchIndex = name, b.o.workers, b.storeName, b.searchName
	if b.lowest.Scenario != "" {
		res.OfLowestCeiling = round(res.RecordsPerSec/b.lowest.RecordsPerSec, 3)
		res.LowestCeiling = b.lowest.Scenario
	}
	b.cpuRatio(res)
}

// cpuRatio sets res's CPU a record over ceiling_pipeline's, when both were measured.
func (b *bench) cpuRatio(res *result) {
	if b.ceilingCPU > 0 && res.CPUMsPerRecord != nil {
		res.CPUOfCeiling = round(res.CPUMsPerRecord.Total/b.ceilingCPU, 2)
	}
}

// oneSourceScenarios runs first_harvest, reharvest, force_harvest and partial_change (those
// of them asked for), each one job of the bench source, and checks each job's counts.
func (b *bench) oneSourceScenarios(ctx context.Context) error {
	n, changed := b.o.records, changedCount(b.o.records)
	scenarios := []struct {
		name    string
		jobType harvest.JobType
		file    int32
		want    harvest.Counts
	}{
		{"first_harvest", harvest.JobHarvest, 0, harvest.Counts{Total: n, Added: n, Validated: n}},
		{"reharvest", harvest.JobHarvest, 0, harvest.Counts{Total: n, Unchanged: n}},
		{"force_harvest", harvest.JobForceHarvest, 0, harvest.Counts{Total: n, Updated: n, Validated: n}},
		{"partial_change", harvest.JobHarvest, 1, harvest.Counts{Total: n, Updated: changed, Unchanged: n - changed, Validated: changed}},
	}
	var sourceID string
	for _, sc := range scenarios {
		if !slices.Contains(b.o.scenarios, sc.name) {
			continue
		}
		b.catalogs.serving.Store(sc.file)
		res, job, err := runScenario(ctx, b.bin, b.svc, b.catalogs.base+"/data.json", &sourceID, sc.jobType, sc.name, b.o.profileDir, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		b.label(res, sc.name)
		res.Records = n
		b.out.print(*res)
		if sc.name == "first_harvest" {
			b.firstHarvest = res
		}
		if job.Status != string(harvest.JobComplete) || job.Counts != sc.want {
			b.failed = append(b.failed, fmt.Sprintf("%s: job %s %s with counts %+v, want complete with %+v",
				sc.name, job.ID, job.Status, job.Counts, sc.want))
		}
	}
	return nil
}

// checkScenario runs first_harvest_check when asked for (links.go).
func (b *bench) checkScenario(ctx context.Context) error {
	if !slices.Contains(b.o.scenarios, checkScenario) {
		return nil
	}
	n := b.o.records
	svc := b.svc
	svc.linkChecks = true
	links := b.catalogs.links
	var settled time.Time
	before := links.requests.Load()
	var sourceID string
	res, job, err := runScenario(ctx, b.bin, svc, b.catalogs.base+"/check.json", &sourceID, harvest.JobHarvest, checkScenario,
		b.o.profileDir, func(h *harvester, job *jobState) (err error) {
			settled, err = h.awaitChecks(ctx, job.ID)
			return err
		})
	if err != nil {
		return fmt.Errorf("%s: %w", checkScenario, err)
	}
	b.label(res, checkScenario)
	res.Records = n
	if b.firstHarvest != nil && b.firstHarvest.RecordsPerSec > 0 {
		res.OfFirstHarvest = round(res.RecordsPerSec/b.firstHarvest.RecordsPerSec, 3)
	}
	checkS := settled.Sub(res.started).Seconds()
	res.ChecksSettledS = round(checkS, 3)
	res.LinkChecksPerSec = round(float64(links.requests.Load()-before)/checkS, 1)
	b.out.print(*res)
	want := harvest.Counts{Total: n, Added: n, Validated: n}
	if job.Status != string(harvest.JobComplete) || job.Counts != want {
		b.failed = append(b.failed, fmt.Sprintf("%s: job %s %s with counts %+v, want complete with %+v",
			checkScenario, job.ID, job.Status, job.Counts, want))
	}
	return nil
}

// fleetScenarios runs the fleet and small_sources scenarios (those asked for).
func (b *bench) fleetScenarios(ctx context.Context) error {
	for _, name := range []string{"fleet", "small_sources"} {
		if !slices.Contains(b.o.scenarios, name) {
			continue
		}
		run := runFleet
		if name == "small_sources" {
			run = runSmallSources
		}
		res, wrong, err := run(ctx, b.bin, b.svc, b.catalogs.base, b.o.fleet)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b.label(res, name)
		if b.firstHarvest != nil && b.firstHarvest.RecordsPerSec > 0 {
			res.OfFirstHarvest = round(res.RecordsPerSec/b.firstHarvest.RecordsPerSec, 3)
		}
		b.out.print(*res)
		b.failed = append(b.failed, wrong...)
	}
	return nil
}

// runScenario runs one job in a fresh harvester process (creating the source on first use)
// and returns its figures and the finished job. With profileDir it writes the process's CPU
// profile over the job and its heap profile at the end there (profilePaths). after, when not
// nil, runs once the figures are taken, before the process stops.
func runScenario(ctx context.Context, bin string, svc services, catalogURL string, sourceID *string,
	jobType harvest.JobType, name, profileDir string, after func(*harvester, *jobState) error) (*result, *jobState, error) {
	if profileDir != "" && svc.pprofAddr == "" {
		addr, err := freeAddr()
		if err != nil {
			return nil, nil, err
		}
		svc.pprofAddr = addr
	}
	h, err := startHarvester(ctx, bin, svc)
	if err != nil {
		return nil, nil, err
	}
	defer h.stop()
	if *sourceID == "" {
		if *sourceID, err = h.createSource(ctx, catalogURL); err != nil {
			return nil, nil, err
		}
	}
	var prof *scenarioProfiler
	if profileDir != "" {
		prof = profileCPU(svc.pprofAddr)
	}
	start := time.Now()
	sampler := h.sampleRSS()
	cpu := startCPU(ctx, h.cmd.Process.Pid, svc.natsPID, svc.databaseURL)
	job, err := h.runJob(ctx, *sourceID, jobType)
	if err == nil && job.Status == string(harvest.JobComplete) {
		err = h.awaitQuality(ctx, job.ID) // the job's end is the job's too
	}
	anon, file := sampler.end()
	if err != nil {
		return nil, nil, err
	}
	wall := time.Since(start)
	cpuMs := cpu.end(ctx, job.Total)
	if prof != nil {
		cpu, heap := profilePaths(profileDir, name)
		if err := prof.end(ctx, cpu, heap); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	rss, err := h.peakRSSMiB()
	if err != nil {
		return nil, nil, err
	}
	stages, err := h.stageStats(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range stages {
		s.MessagesPerSec = round(float64(s.Messages)/wall.Seconds(), 1)
		if s.Messages > 0 {
			s.HandlerMsPerMessage = round(1000*s.HandlerS/float64(s.Messages), 2)
		}
		s.HandlerS = round(s.HandlerS, 3)
	}
	if after != nil {
		if err := after(h, job); err != nil {
			return nil, nil, err
		}
	}
	counts := job.Counts
	return &result{started: start, RecordsPerSec: round(float64(job.Total)/wall.Seconds(), 1), WallS: round(wall.Seconds(), 3),
		PeakRSSMiB: round(rss, 1), PeakRSSAnonMiB: round(anon, 1), PeakRSSFileMiB: round(file, 1), CPUMsPerRecord: cpuMs, Status: job.Status, Counts: &counts, Stages: stages}, job, nil
}

func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

func joinLines(lines []string) string {
	s := ""
	for i, l := range lines {
		if i > 0 {
			s += "\n  "
		}
		s += l
	}
	return s
}
