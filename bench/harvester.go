package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/harvester-dev/harvester/harvest"
)

const apiKey = "bench"

// services are where the harvester under test keeps its state: empty URLs mean the embedded
// default (SQLite and an in-process nats-server in dataDir).
type services struct {
	databaseURL, natsURL, dataDir string
	concurrency                   int
	pprofAddr                     string // the harvester's --pprof-addr; empty: none
	opensearchURL, searchIndex    string // the harvester's --opensearch-url and --search-index; empty: defaults
	jobWindow                     int    // the harvester's --job-window; 0: its default
	natsPID                       int    // the bench's own nats-server; 0: none (-nats-url, -embedded)
	// linkChecks runs the harvester with CHECK on (its default); off (--link-checks=false) the
	// scenarios measure the harvest alone, as before CHECK existed.
	linkChecks bool
}

// harvester is one `harvester serve` process: API, scheduler and every stage.
type harvester struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:port
	client *http.Client
	stderr *bytes.Buffer
	exited chan struct{}
}

// startHarvester runs bin serve against svc and returns once /readyz answers 200.
func startHarvester(ctx context.Context, bin string, svc services) (*harvester, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--addr", addr, "--database-url", svc.databaseURL, "--nats-url", svc.natsURL,
		"--data-dir", svc.dataDir, "--allow-private-sources",
		"--concurrency", strconv.Itoa(svc.concurrency), "--log-level", "error"}
	if svc.pprofAddr != "" {
		args = append(args, "--pprof-addr", svc.pprofAddr)
	}
	if svc.opensearchURL != "" {
		args = append(args, "--opensearch-url", svc.opensearchURL)
	}
	if svc.searchIndex != "" {
		args = append(args, "--search-index", svc.searchIndex)
	}
	if svc.jobWindow != 0 {
		args = append(args, "--job-window", strconv.Itoa(svc.jobWindow))
	}
	if !svc.linkChecks {
		args = append(args, "--link-checks=false")
	}
	cmd := exec.Command(bin, args...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "NATS_URL=") &&
			!strings.HasPrefix(kv, "OPENSEARCH_URL=") && !strings.HasPrefix(kv, "HARVESTER_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HARVESTER_API_KEY="+apiKey)
	h := &harvester{cmd: cmd, base: "http://" + addr, client: &http.Client{Timeout: 30 * time.Second},
		stderr: new(bytes.Buffer), exited: make(chan struct{})}
	cmd.Stderr = h.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // dies with the bench
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s serve: %w", bin, err)
	}
	go func() { _ = cmd.Wait(); close(h.exited) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := h.client.Get(h.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return h, nil
			}
		}
		select {
		case <-h.exited:
			return nil, fmt.Errorf("harvester serve exited: %s", h.stderr.String())
		case <-ctx.Done():
			h.stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			h.stop()
			return nil, fmt.Errorf("harvester serve not ready within 60s: %v; %s", err, h.stderr.String())
		}
	}
}

// stop ends the process with SIGTERM (SIGKILL after 30 s) and waits for it.
func (h *harvester) stop() {
	_ = h.cmd.Process.Signal(os.Interrupt)
	select {
	case <-h.exited:
	case <-time.After(30 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.exited
	}
}

// peakRSSMiB is the process's peak resident set (VmHWM of /proc/<pid>/status) in MiB.
func (h *harvester) peakRSSMiB() (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", h.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("peak RSS: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return 0, fmt.Errorf("peak RSS: %q: %w", line, err)
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("peak RSS: no VmHWM in /proc/%d/status", h.cmd.Process.Pid)
}

// rssSampler follows the process's resident set split as /proc/<pid>/status gives it:
// RssAnon (heap, stacks: what the harvester allocates) and RssFile (file pages mapped in, such
// as the bleve index's memory-mapped segments, which the kernel can drop), sampled every
// 100 ms, keeping each one's peak in kB.
type rssSampler struct {
	stop               chan struct{}
	done               chan struct{}
	anonPeak, filePeak float64
}

// sampleRSS starts a rssSampler on the harvester process; call its end to stop it.
func (h *harvester) sampleRSS() *rssSampler {
	s := &rssSampler{stop: make(chan struct{}), done: make(chan struct{})}
	path := fmt.Sprintf("/proc/%d/status", h.cmd.Process.Pid)
	go func() {
		defer close(s.done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if data, err := os.ReadFile(path); err == nil {
				for _, line := range strings.Split(string(data), "\n") {
					for key, peak := range map[string]*float64{"RssAnon:": &s.anonPeak, "RssFile:": &s.filePeak} {
						if rest, ok := strings.CutPrefix(line, key); ok {
							kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
							if err == nil && kb > *peak {
								*peak = kb
							}
						}
					}
				}
			}
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

// end stops sampling and returns the peaks of RssAnon and RssFile in MiB.
func (s *rssSampler) end() (anonMiB, fileMiB float64) {
	close(s.stop)
	<-s.done
	return s.anonPeak / 1024, s.filePeak / 1024
}

// call sends one API request with the key and decodes a 2xx JSON answer into out.
func (h *harvester) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("X-API-Key", apiKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return nil
}

// createSource creates the bench's harvest source for the catalog at url.
func (h *harvester) createSource(ctx context.Context, url string) (string, error) {
	var src struct {
		ID string `json:"id"`
	}
	err := h.call(ctx, http.MethodPost, "/api/v1/harvest_sources", map[string]any{"name": "bench " + url, "url": url,
		"source_type": "document", "schema_type": string(harvest.SchemaDCATUS11Federal), "frequency": "manual"}, &src)
	return src.ID, err
}

// createSources creates n sources, the k-th harvesting url(k), and returns their ids.
func (h *harvester) createSources(ctx context.Context, n int, url func(k int) string) ([]string, error) {
	ids := make([]string, n)
	for k := range ids {
		var err error
		if ids[k], err = h.createSource(ctx, url(k)); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// jobState is the part of GET /api/v1/harvest_jobs/{id} the bench reads.
type jobState struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	harvest.Counts
}

// runJob queues a job of jobType on the source and polls it every 50 ms until it finishes.
func (h *harvester) runJob(ctx context.Context, sourceID string, jobType harvest.JobType) (*jobState, error) {
	var job jobState
	if err := h.call(ctx, http.MethodPost, "/api/v1/harvest_sources/"+sourceID+"/jobs",
		map[string]string{"job_type": string(jobType)}, &job); err != nil {
		return nil, err
	}
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("job %s: %w", job.ID, ctx.Err())
		case <-h.exited:
			return nil, fmt.Errorf("harvester serve exited during job %s: %s", job.ID, h.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if err := h.call(ctx, http.MethodGet, "/api/v1/harvest_jobs/"+job.ID, nil, &job); err != nil {
			return nil, err
		}
		if job.Status == string(harvest.JobComplete) || job.Status == string(harvest.JobError) {
			return &job, nil
		}
	}
}

// awaitQuality polls the catalog's latest recorded quality (GET /api/v1/quality) every 50 ms
// until the job jobID recorded it: the job's end (quality/assess.RecordJob, then the job's
// email) runs after its status turns complete, and is part of what the job costs; a process
// stopped before it ends leaves it undone. It gives up after two minutes (a job whose quality
// is not recorded: the harvester's log says why).
func (h *harvester) awaitQuality(ctx context.Context, jobID string) error {
	limit := time.After(2 * time.Minute)
	for {
		var latest struct {
			JobID *string `json:"job_id"`
		}
		if err := h.call(ctx, http.MethodGet, "/api/v1/quality", nil, &latest); err != nil {
			return err
		}
		if latest.JobID != nil && *latest.JobID == jobID {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("job %s: %w", jobID, ctx.Err())
		case <-h.exited:
			return fmt.Errorf("harvester serve exited before job %s's quality was recorded: %s", jobID, h.stderr.String())
		case <-limit:
			return fmt.Errorf("job %s: its quality was not recorded within 2 minutes", jobID)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stageStat is one stage's share of a scenario, from the harvester's Prometheus metrics
// (harvester_stage_handler_duration_seconds: a batch's time is shared by its messages).
type stageStat struct {
	Messages int `json:"messages"`
	// MessagesPerSec is Messages over the scenario's wall time.
	MessagesPerSec float64 `json:"messages_per_sec"`
	// HandlerS is the time spent inside the stage's handlers, summed over its handlers.
	HandlerS float64 `json:"handler_s"`
	// HandlerMsPerMessage is HandlerS per message, in milliseconds: one handler's latency.
	HandlerMsPerMessage float64 `json:"handler_ms_per_message"`
}

// stageStats scrapes /metrics and returns, per stage, the handled messages and handler seconds.
func (h *harvester) stageStats(ctx context.Context) (map[string]*stageStat, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	out := map[string]*stageStat{}
	f := families["harvester_stage_handler_duration_seconds"]
	if f == nil {
		return out, nil
	}
	for _, m := range f.GetMetric() {
		stage := stageOfHandler(m)
		if stage == "" {
			continue
		}
		s := out[stage]
		if s == nil {
			s = &stageStat{}
			out[stage] = s
		}
		if hist := m.GetHistogram(); hist != nil {
			s.Messages += int(hist.GetSampleCount())
			s.HandlerS += hist.GetSampleSum()
		} else if sum := m.GetSummary(); sum != nil {
			s.Messages += int(sum.GetSampleCount())
			s.HandlerS += sum.GetSampleSum()
		}
	}
	return out, nil
}

// stageOfHandler is the stage label of a stage metric.
func stageOfHandler(m *dto.Metric) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == "stage" {
			return l.GetValue()
		}
	}
	return ""
}
