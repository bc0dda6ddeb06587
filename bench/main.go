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
// of the lowest ceiling.
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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
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
	// SmallJobS is the distribution of the small sources' job times (trigger to complete, in
	// seconds, by the database's clock): p50, p95, max; BigJobS the big source's.
	SmallJobS *distribution `json:"small_job_s,omitempty"`
	BigJobS   float64       `json:"big_job_s,omitempty"`
}

func run(ctx context.Context, o options, stdout io.Writer) error {
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
	tmp, err := os.MkdirTemp("", "harvester-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	out := newPrinter(stdout, o.json)

	// The harvester binary, built from this checkout.
	bin := filepath.Join(tmp, "harvester")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/harvester")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build ./cmd/harvester: %w", err)
	}

	// The catalog, as written and with 10% of the records changed.
	templates, err := loadTemplates(o.corpus)
	if err != nil {
		return err
	}
	files := [2]string{filepath.Join(tmp, "catalog.json"), filepath.Join(tmp, "catalog-changed.json")}
	for i, f := range files {
		if err := writeFile(f, func(w io.Writer) error { return writeCatalog(w, templates, o.records, i == 1) }); err != nil {
			return fmt.Errorf("write catalog: %w", err)
		}
	}
	fleetFiles, err := o.fleet.writeCatalogs(tmp, templates, o.records, o.scenarios)
	if err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	var serving atomic.Int32
	base, stopServer, err := serveCatalog(func(path string) (string, bool) {
		if path == "/data.json" {
			return files[serving.Load()], true
		}
		f, ok := fleetFiles[path]
		return f, ok
	})
	if err != nil {
		return err
	}
	defer stopServer()
	catalogURL := base + "/data.json"

	// The services.
	svc := services{dataDir: filepath.Join(tmp, "data"), concurrency: o.workers, pprofAddr: o.pprofAddr,
		opensearchURL: o.opensearchURL, searchIndex: o.searchIndex, jobWindow: o.jobWindow}
	var ceilingNATS string
	if o.embedded {
		url, stopNATS, err := startEmbeddedNATS(filepath.Join(tmp, "ceiling-nats"))
		if err != nil {
			return err
		}
		defer stopNATS()
		ceilingNATS = url
	} else {
		db, drop, err := scratchDatabase(ctx, o.databaseURL)
		if err != nil {
			return err
		}
		defer drop()
		svc.databaseURL = db
		svc.natsURL = o.natsURL
		if svc.natsURL == "" {
			ns, err := startNATS(tmp)
			if err != nil {
				return err
			}
			defer ns.stop()
			svc.natsURL = ns.url
		}
		ceilingNATS = svc.natsURL
	}

	var ceilings []result
	if !o.skipCeilings {
		if ceilings, err = measureCeilings(ctx, o, templates, ceilingNATS, svc.databaseURL); err != nil {
			return err
		}
		for _, c := range ceilings {
			out.print(c)
		}
	}
	lowest := slices.MinFunc(append([]result{{RecordsPerSec: math.Inf(1)}}, ceilings...), func(a, b result) int {
		return cmp.Compare(a.RecordsPerSec, b.RecordsPerSec)
	})

	n, changed := o.records, changedCount(o.records)
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
	storeName := "postgres+jetstream"
	searchName := "bleve"
	switch {
	case o.searchIndex == "none":
		searchName = "none"
	case o.opensearchURL != "":
		searchName = "opensearch"
	}
	if o.embedded {
		storeName = "sqlite+embedded-nats"
	}
	var sourceID string
	var failed []string
	var firstHarvest *result
	for _, sc := range scenarios {
		if !slices.Contains(o.scenarios, sc.name) {
			continue
		}
		serving.Store(sc.file)
		res, job, err := runScenario(ctx, bin, svc, catalogURL, &sourceID, sc.jobType, sc.name, o.profileDir)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		res.Scenario, res.Records, res.Workers, res.Store = sc.name, n, o.workers, storeName
		res.SearchIndex = searchName
		if lowest.Scenario != "" {
			res.OfLowestCeiling = round(res.RecordsPerSec/lowest.RecordsPerSec, 3)
			res.LowestCeiling = lowest.Scenario
		}
		out.print(*res)
		if sc.name == "first_harvest" {
			firstHarvest = res
		}
		if job.Status != string(harvest.JobComplete) || job.Counts != sc.want {
			failed = append(failed, fmt.Sprintf("%s: job %s %s with counts %+v, want complete with %+v",
				sc.name, job.ID, job.Status, job.Counts, sc.want))
		}
	}
	for _, name := range []string{"fleet", "small_sources"} {
		if !slices.Contains(o.scenarios, name) {
			continue
		}
		run := runFleet
		if name == "small_sources" {
			run = runSmallSources
		}
		res, wrong, err := run(ctx, bin, svc, base, o.fleet)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		res.Scenario, res.Workers, res.Store, res.SearchIndex = name, o.workers, storeName, searchName
		if lowest.Scenario != "" {
			res.OfLowestCeiling = round(res.RecordsPerSec/lowest.RecordsPerSec, 3)
			res.LowestCeiling = lowest.Scenario
		}
		if firstHarvest != nil && firstHarvest.RecordsPerSec > 0 {
			res.OfFirstHarvest = round(res.RecordsPerSec/firstHarvest.RecordsPerSec, 3)
		}
		out.print(*res)
		failed = append(failed, wrong...)
	}
	out.flush()
	if len(failed) > 0 {
		return fmt.Errorf("wrong counts:\n  %s", joinLines(failed))
	}
	return nil
}

// runScenario runs one job in a fresh harvester process (creating the source on first use)
// and returns its figures and the finished job. With profileDir it writes the process's CPU
// profile over the job and its heap profile at the end there (profilePaths).
func runScenario(ctx context.Context, bin string, svc services, catalogURL string, sourceID *string,
	jobType harvest.JobType, name, profileDir string) (*result, *jobState, error) {
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
	job, err := h.runJob(ctx, *sourceID, jobType)
	anon, file := sampler.end()
	if err != nil {
		return nil, nil, err
	}
	wall := time.Since(start)
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
	counts := job.Counts
	return &result{RecordsPerSec: round(float64(job.Total)/wall.Seconds(), 1), WallS: round(wall.Seconds(), 3),
		PeakRSSMiB: round(rss, 1), PeakRSSAnonMiB: round(anon, 1), PeakRSSFileMiB: round(file, 1), Status: job.Status, Counts: &counts, Stages: stages}, job, nil
}

// measureCeilings measures what each component alone can do with n records.
func measureCeilings(ctx context.Context, o options, templates []map[string]json.RawMessage, natsURL, dbURL string) ([]result, error) {
	bodies, err := recordBodies(templates)
	if err != nil {
		return nil, err
	}
	n := o.records
	rate := func(name string, d time.Duration) result {
		return result{Scenario: name, Records: n, RecordsPerSec: round(float64(n)/d.Seconds(), 1), WallS: round(d.Seconds(), 3)}
	}
	var out []result
	d, err := ceilingJetStream(ctx, natsURL, bodies, n)
	if err != nil {
		return nil, fmt.Errorf("ceiling_jetstream: %w", err)
	}
	out = append(out, rate("ceiling_jetstream", d))
	if dbURL != "" {
		rowN := min(n, 10_000)
		db, err := ceilingPostgres(ctx, dbURL, bodies, n, rowN)
		if err != nil {
			return nil, fmt.Errorf("ceiling_postgres_upsert: %w", err)
		}
		r := rate("ceiling_postgres_upsert", db.copyUpsert)
		per := func(d time.Duration) map[string]any {
			return map[string]any{"records": rowN, "records_per_sec": round(float64(rowN)/d.Seconds(), 1),
				"us_per_record": round(float64(d.Microseconds())/float64(rowN), 1)}
		}
		r.Alternatives = map[string]map[string]any{"upsert_row_at_a_time": per(db.rowUpsert),
			"hash_lookup_row_at_a_time": per(db.rowLookup), "hash_lookup_batch_500": per(db.batchLookup),
			"settle_row_at_a_time": per(db.rowSettle), "settle_batch_500": per(db.batchSettle)}
		out = append(out, r)
	}
	if d, err = ceilingValidate(bodies, n); err != nil {
		return nil, fmt.Errorf("ceiling_validate: %w", err)
	}
	out = append(out, rate("ceiling_validate", d))
	if d, err = ceilingHash(bodies, n); err != nil {
		return nil, fmt.Errorf("ceiling_hash: %w", err)
	}
	out = append(out, rate("ceiling_hash", d))
	if p, ok := pipelineCeiling(out); ok {
		out = append(out, p)
	}
	return out, ctx.Err()
}

// pipelineHops is how many JetStream hops a changed record makes: extract → compare →
// transform → validate → sync → report.
const pipelineHops = 5

// pipelineCeiling composes the measured ceilings into the ceiling of the whole pipeline, as
// DESIGN.md does: each ceiling ran on the whole machine, so a record's share of the machine is
// the sum of its components' (five hops, one upsert, one validation, one hash), and the
// pipeline's ceiling is one over that sum. ok is false without the Postgres ceiling (-embedded).
func pipelineCeiling(ceilings []result) (result, bool) {
	per := map[string]float64{} // seconds of the machine per record
	n := 0
	for _, c := range ceilings {
		per[c.Scenario] = 1 / c.RecordsPerSec
		n = c.Records
	}
	js, db, v, h := per["ceiling_jetstream"], per["ceiling_postgres_upsert"], per["ceiling_validate"], per["ceiling_hash"]
	if js == 0 || db == 0 || v == 0 || h == 0 {
		return result{}, false
	}
	sum := pipelineHops*js + db + v + h
	return result{Scenario: "ceiling_pipeline", Records: n, RecordsPerSec: round(1/sum, 1), WallS: round(sum*float64(n), 3)}, true
}

// serveCatalog serves the file route(path) names at each path it knows (the bench source's
// /data.json, and the catalogs of the fleet and small_sources scenarios), streamed from disk
// with no validators (no Last-Modified or ETag), so every job downloads and reads the whole
// catalog. base is the server's http://host:port.
func serveCatalog(route func(path string) (string, bool)) (base string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file, ok := route(r.URL.Path)
		if !ok {
			http.NotFound(w, r)
			return
		}
		f, err := os.Open(file)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, f)
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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

// printer writes results as JSON lines, or as a table at flush.
type printer struct {
	w    io.Writer
	json bool
	tw   *tabwriter.Writer
}

func newPrinter(w io.Writer, asJSON bool) *printer {
	p := &printer{w: w, json: asJSON}
	if !asJSON {
		p.tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(p.tw, "scenario\trecords\trecords/s\twall s\tpeak RSS MiB\tanon / file MiB\tof lowest ceiling\tjob s p50 / p95 / max\tstatus\t")
	}
	return p
}

func (p *printer) print(r result) {
	if p.json {
		data, _ := json.Marshal(r) // plain data: always encodes
		fmt.Fprintln(p.w, string(data))
		return
	}
	split := "-"
	if r.PeakRSSAnonMiB > 0 {
		split = fmt.Sprintf("%.0f / %.0f", r.PeakRSSAnonMiB, r.PeakRSSFileMiB)
	}
	jobs := "-"
	if d := r.SmallJobS; d != nil {
		jobs = fmt.Sprintf("%.2f / %.2f / %.2f", d.P50, d.P95, d.Max)
	}
	fmt.Fprintf(p.tw, "%s\t%d\t%.0f\t%.2f\t%s\t%s\t%s\t%s\t%s\t\n", r.Scenario, r.Records, r.RecordsPerSec, r.WallS,
		orDash(r.PeakRSSMiB, "%.0f"), split, orDash(r.OfLowestCeiling, "%.2f"), jobs, r.Status)
}

func orDash(x float64, format string) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf(format, x)
}

func (p *printer) flush() {
	if p.tw != nil {
		_ = p.tw.Flush()
	}
}
