package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harvester-dev/harvester/harvest"
)

// allScenarios are the scenarios in the order they run.
var allScenarios = []string{"first_harvest", "reharvest", "force_harvest", "partial_change", checkScenario, "fleet",
	"small_sources"}

// parseScenarios reads -scenarios: names of allScenarios, comma-separated. A scenario that
// follows first_harvest (it harvests the same source again) needs first_harvest too.
func parseScenarios(list string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(allScenarios, name) {
			return nil, fmt.Errorf("-scenarios: unknown scenario %q (want some of %s)", name, strings.Join(allScenarios, ","))
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, errors.New("-scenarios: no scenario")
	}
	for _, name := range []string{"reharvest", "force_harvest", "partial_change"} {
		if slices.Contains(out, name) && !slices.Contains(out, "first_harvest") {
			return nil, fmt.Errorf("-scenarios: %s harvests first_harvest's source again: add first_harvest", name)
		}
	}
	return out, nil
}

// fleetOptions size the fleet and small_sources scenarios.
//
//	fleet          -fleet-sources sources triggered at once through the API (the harvester's
//	               default --max-jobs): one of -fleet-big-records records, the others of
//	               -fleet-small-records each
//	small_sources  -small-sources sources of -small-records records, one job after another
//
// Zero sizes scale with -records: at 100,000 they are 200 sources, 50,000 and 250 records, and
// 50 sources of 200, the sizes; at the CI smoke run's 1,000 a few records each.
type fleetOptions struct {
	sources, bigRecords, smallRecords int
	smallSources, smallSourceRecords  int
}

func (f *fleetOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&f.sources, "fleet-sources", 200, "fleet: sources triggered at once (one big, the rest small)")
	fs.IntVar(&f.bigRecords, "fleet-big-records", 0, "fleet: records of the big source (default -records/2)")
	fs.IntVar(&f.smallRecords, "fleet-small-records", 0, "fleet: records of each small source (default -records/400)")
	fs.IntVar(&f.smallSources, "small-sources", 50, "small_sources: sources harvested one after another")
	fs.IntVar(&f.smallSourceRecords, "small-records", 0, "small_sources: records of each (default -records/500)")
}

func (f fleetOptions) withDefaults(records int) fleetOptions {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = max(d, 1)
		}
	}
	def(&f.sources, 2)
	f.sources = max(f.sources, 2)
	def(&f.bigRecords, records/2)
	def(&f.smallRecords, records/400)
	def(&f.smallSources, 1)
	def(&f.smallSourceRecords, records/500)
	return f
}

// fleetPath and smallPath are where serveCatalogs serves the catalogs of the fleet's source k
// (k = 0 the big one) and of small_sources' source k.
func fleetPath(k int) string { return fmt.Sprintf("/fleet/%03d/data.json", k) }
func smallPath(k int) string { return fmt.Sprintf("/small/%03d/data.json", k) }

// records is what source k of the fleet publishes.
func (f fleetOptions) records(k int) int {
	if k == 0 {
		return f.bigRecords
	}
	return f.smallRecords
}

// writeCatalogs writes the catalogs of the selected fleet scenarios into dir and returns the
// file of each path. Their records are those of the synthetic catalog from first on (after the
// bench source's and first_harvest_check's), each source a range of its own, so no dataset of
// theirs is a cross-source duplicate of another scenario's.
func (f fleetOptions) writeCatalogs(dir string, templates []map[string]json.RawMessage, first int, scenarios []string) (map[string]string, error) {
	files := map[string]string{}
	from := first
	write := func(path string, n int) error {
		file := filepath.Join(dir, strings.ReplaceAll(strings.Trim(path, "/"), "/", "-"))
		err := writeFile(file, func(w io.Writer) error { return writeCatalogFrom(w, templates, from, n, false, nil) })
		files[path] = file
		from += n
		return err
	}
	if slices.Contains(scenarios, "fleet") {
		for k := range f.sources {
			if err := write(fleetPath(k), f.records(k)); err != nil {
				return nil, err
			}
		}
	}
	if slices.Contains(scenarios, "small_sources") {
		for k := range f.smallSources {
			if err := write(smallPath(k), f.smallSourceRecords); err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}

// distribution is p50, p95 and max of some durations, in seconds.
type distribution struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	Max float64 `json:"max"`
}

// distributionOf is the distribution of ds (nearest-rank percentiles); ds is sorted.
func distributionOf(ds []time.Duration) *distribution {
	if len(ds) == 0 {
		return nil
	}
	slices.Sort(ds)
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(ds))+0.999999) - 1
		return ds[min(max(i, 0), len(ds)-1)]
	}
	return &distribution{P50: round(rank(0.50).Seconds(), 3), P95: round(rank(0.95).Seconds(), 3),
		Max: round(ds[len(ds)-1].Seconds(), 3)}
}

// fleetJob is one job of a fleet scenario as the API shows it once it ended.
type fleetJob struct {
	jobState
	DateCreated  time.Time  `json:"date_created"`
	DateFinished *time.Time `json:"date_finished"`
}

// took is the job's time from trigger (its row's creation) to its end, by the database's clock.
func (j *fleetJob) took() time.Duration {
	if j.DateFinished == nil {
		return 0
	}
	return j.DateFinished.Sub(j.DateCreated)
}

// checkJob returns why job did not complete with n records all added, or "".
func checkJob(scenario string, job *fleetJob, n int) string {
	want := harvest.Counts{Total: n, Added: n, Validated: n}
	if job.Status != string(harvest.JobComplete) || job.Counts != want {
		return fmt.Sprintf("%s: job %s %s with counts %+v, want complete with %+v", scenario, job.ID, job.Status,
			job.Counts, want)
	}
	return ""
}

// runFleet runs the fleet scenario in a fresh harvester process: it creates the sources, then
// triggers a harvest of each at once (8 API calls at a time), waits until no job is new or in
// progress, and reads every job back. Wall time is from the first job's creation to the last
// one's end; the small sources' job times are trigger to complete. wrong lists the jobs
// without exactly the expected counts.
func runFleet(ctx context.Context, bin string, svc services, base string, f fleetOptions) (*result, []string, error) {
	h, err := startHarvester(ctx, bin, svc)
	if err != nil {
		return nil, nil, err
	}
	defer h.stop()
	ids, err := h.createSources(ctx, f.sources, func(k int) string { return base + fleetPath(k) })
	if err != nil {
		return nil, nil, err
	}
	sampler := h.sampleRSS()
	jobIDs := make([]string, len(ids))
	var wg sync.WaitGroup
	errs := make([]error, len(ids))
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for k := range next {
				var job jobState
				errs[k] = h.call(ctx, http.MethodPost, "/api/v1/harvest_sources/"+ids[k]+"/jobs",
					map[string]string{"job_type": string(harvest.JobHarvest)}, &job)
				jobIDs[k] = job.ID
			}
		})
	}
	for k := range ids {
		next <- k
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		sampler.end()
		return nil, nil, err
	}
	err = h.waitIdle(ctx, 200*time.Millisecond)
	anon, file := sampler.end()
	if err != nil {
		return nil, nil, err
	}
	jobs := make([]*fleetJob, len(jobIDs))
	for k, id := range jobIDs {
		jobs[k] = new(fleetJob)
		if err := h.call(ctx, http.MethodGet, "/api/v1/harvest_jobs/"+id, nil, jobs[k]); err != nil {
			return nil, nil, err
		}
	}
	res := &result{Jobs: len(jobs), Status: string(harvest.JobComplete)}
	var wrong []string
	var small []time.Duration
	first, last := jobs[0].DateCreated, jobs[0].DateCreated
	for k, j := range jobs {
		if why := checkJob("fleet", j, f.records(k)); why != "" {
			wrong = append(wrong, why)
			res.Status = "wrong counts"
		}
		res.Records += j.Total
		if j.DateCreated.Before(first) {
			first = j.DateCreated
		}
		if j.DateFinished != nil && j.DateFinished.After(last) {
			last = *j.DateFinished
		}
		if k == 0 {
			res.BigJobS = round(j.took().Seconds(), 3)
		} else {
			small = append(small, j.took())
		}
	}
	wall := last.Sub(first)
	res.WallS, res.RecordsPerSec = round(wall.Seconds(), 3), round(float64(res.Records)/wall.Seconds(), 1)
	res.SmallJobS = distributionOf(small)
	if err := h.figures(ctx, res, wall, anon, file); err != nil {
		return nil, nil, err
	}
	return res, wrong, nil
}

// runSmallSources runs the small_sources scenario in a fresh harvester process: it creates the
// sources, then harvests each one after another (trigger, wait until it ended, next). Its
// records/s are the total over the sum of the job times; SmallJobS is their distribution.
func runSmallSources(ctx context.Context, bin string, svc services, base string, f fleetOptions) (*result, []string, error) {
	h, err := startHarvester(ctx, bin, svc)
	if err != nil {
		return nil, nil, err
	}
	defer h.stop()
	ids, err := h.createSources(ctx, f.smallSources, func(k int) string { return base + smallPath(k) })
	if err != nil {
		return nil, nil, err
	}
	sampler := h.sampleRSS()
	res := &result{Jobs: len(ids), Status: string(harvest.JobComplete)}
	var wrong []string
	var took []time.Duration
	start := time.Now()
	for _, id := range ids {
		var job fleetJob
		if err := h.call(ctx, http.MethodPost, "/api/v1/harvest_sources/"+id+"/jobs",
			map[string]string{"job_type": string(harvest.JobHarvest)}, &job); err != nil {
			sampler.end()
			return nil, nil, err
		}
		for !harvest.JobStatus(job.Status).Finished() {
			select {
			case <-ctx.Done():
				sampler.end()
				return nil, nil, ctx.Err()
			case <-h.exited:
				sampler.end()
				return nil, nil, fmt.Errorf("harvester serve exited during job %s: %s", job.ID, h.stderr.String())
			case <-time.After(5 * time.Millisecond):
			}
			if err := h.call(ctx, http.MethodGet, "/api/v1/harvest_jobs/"+job.ID, nil, &job); err != nil {
				sampler.end()
				return nil, nil, err
			}
		}
		if why := checkJob("small_sources", &job, f.smallSourceRecords); why != "" {
			wrong = append(wrong, why)
			res.Status = "wrong counts"
		}
		res.Records += job.Total
		took = append(took, job.took())
	}
	wall := time.Since(start)
	anon, file := sampler.end()
	var sum time.Duration
	for _, d := range took {
		sum += d
	}
	res.WallS, res.RecordsPerSec = round(wall.Seconds(), 3), round(float64(res.Records)/sum.Seconds(), 1)
	res.SmallJobS = distributionOf(took)
	if err := h.figures(ctx, res, wall, anon, file); err != nil {
		return nil, nil, err
	}
	return res, wrong, nil
}

// waitIdle polls the job list every interval until no job is new or in progress.
func (h *harvester) waitIdle(ctx context.Context, interval time.Duration) error {
	for {
		busy := 0
		for _, status := range []harvest.JobStatus{harvest.JobNew, harvest.JobInProgress} {
			var page struct {
				Total int `json:"total"`
			}
			if err := h.call(ctx, http.MethodGet, "/api/v1/harvest_jobs?per_page=1&status="+string(status), nil, &page); err != nil {
				return err
			}
			busy += page.Total
		}
		if busy == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-h.exited:
			return fmt.Errorf("harvester serve exited with %d jobs unfinished: %s", busy, h.stderr.String())
		case <-time.After(interval):
		}
	}
}

// figures adds the process's peak RSS and per-stage figures over wall to res.
func (h *harvester) figures(ctx context.Context, res *result, wall time.Duration, anon, file float64) error {
	rss, err := h.peakRSSMiB()
	if err != nil {
		return err
	}
	stages, err := h.stageStats(ctx)
	if err != nil {
		return err
	}
	for _, s := range stages {
		s.MessagesPerSec = round(float64(s.Messages)/wall.Seconds(), 1)
		if s.Messages > 0 {
			s.HandlerMsPerMessage = round(1000*s.HandlerS/float64(s.Messages), 2)
		}
		s.HandlerS = round(s.HandlerS, 3)
	}
	res.PeakRSSMiB, res.PeakRSSAnonMiB, res.PeakRSSFileMiB, res.Stages = round(rss, 1), round(anon, 1), round(file, 1), stages
	return nil
}
