package pipeline_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/stages/check"
)

// politeHost is a loopback site that answers every request after delay and records how many
// requests it had in flight at most and when each arrived.
type politeHost struct {
	*httptest.Server
	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	arrivals    []time.Time
}

func newPoliteHost(t *testing.T, delay time.Duration) *politeHost {
	h := &politeHost{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h.mu.Lock()
		h.inFlight++
		h.maxInFlight = max(h.maxInFlight, h.inFlight)
		h.arrivals = append(h.arrivals, time.Now())
		h.mu.Unlock()
		time.Sleep(delay)
		h.mu.Lock()
		h.inFlight--
		h.mu.Unlock()
		w.Header().Set("Content-Type", "text/csv")
	}))
	t.Cleanup(h.Close)
	return h
}

// busiestSecond is the most requests that arrived within one second.
func (h *politeHost) busiestSecond() int {
	h.mu.Lock()
	arrivals := slices.Clone(h.arrivals)
	h.mu.Unlock()
	slices.SortFunc(arrivals, func(a, b time.Time) int { return a.Compare(b) })
	most := 0
	for i, start := range arrivals {
		n := 0
		for _, a := range arrivals[i:] {
			if a.Sub(start) >= time.Second {
				break
			}
			n++
		}
		most = max(most, n)
	}
	return most
}

// spreadCatalog serves a catalog of n copies of the CFPB corpus's first dataset, each with one
// distribution whose downloadURL is its own path on site; it returns the catalog's URL and
// the distribution URLs.
func spreadCatalog(t *testing.T, site string, n int) (string, []string) {
	raw, err := os.ReadFile(corpustest.Path(t, "dcatus/agency-cfpb-2025-07.data.json"))
	require.NoError(t, err)
	var catalog map[string]any
	require.NoError(t, json.Unmarshal(raw, &catalog))
	first, err := json.Marshal(catalog["dataset"].([]any)[0])
	require.NoError(t, err)
	var datasets []any
	var urls []string
	for i := range n {
		var d map[string]any
		require.NoError(t, json.Unmarshal(first, &d))
		d["identifier"] = fmt.Sprintf("spread-%d", i)
		d["title"] = fmt.Sprintf("Spread %d", i)
		u := fmt.Sprintf("%s/file/%d.csv", site, i)
		d["distribution"] = []any{map[string]any{"@type": "dcat:Distribution", "downloadURL": u, "mediaType": "text/csv"}}
		datasets = append(datasets, d)
		urls = append(urls, u)
	}
	catalog["dataset"] = datasets
	return serveCatalog(t, catalog), urls
}

// gauge reads the value of the gauge name from reg; -1 when it has none.
func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return -1
}

// TestCheckHostLimitsAcrossWorkers: the per-host limits of link checks hold across the processes
// that run CHECK, not per process. Two `worker --stages check` processes (pipelines of CHECK
// alone, on one NATS and one database) count each other (harvester_check_workers 2) and share
// --link-host-concurrency 2 and --link-host-rate 10; the URLs of a harvest on one slow loopback
// host (each answer takes 150 ms, so 2 requests in flight per process would make 13 a second,
// and 4 at once together) are all checked, and the host never saw more than 2 requests at once
// nor more than 10 a second (with the slack of site_test.go's requirePolite: two requests).
func TestCheckHostLimitsAcrossWorkers(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	site := newPoliteHost(t, 150*time.Millisecond)
	catalogURL, urls := spreadCatalog(t, site.URL, 60)
	// The default heartbeat (5 s): a member is dropped after three missed, which a loaded machine's
	// late goroutine must not reach while the URLs are checked.
	links := &pipeline.LinkCheckConfig{Recheck: check.DefaultRecheck,
		Checker: check.Config{HostConcurrency: 2, HostRate: 10}}

	var regs []*prometheus.Registry
	for range 2 {
		worker := h.Config
		worker.LinkChecks = links
		worker.Stages = []string{pipeline.StageCheck}
		worker.DataDir = t.TempDir()
		worker.Registry = prometheus.NewRegistry()
		pl, err := pipeline.New(t.Context(), worker)
		require.NoError(t, err)
		require.NoError(t, pl.Start(t.Context()))
		t.Cleanup(pl.Close)
		regs = append(regs, worker.Registry)
	}
	require.Eventually(t, func() bool {
		return gauge(t, regs[0], "harvester_check_workers") == 2 && gauge(t, regs[1], "harvester_check_workers") == 2
	}, time.Minute, 10*time.Millisecond, "each worker counts both")

	rep := harvestWithoutCheck(t, h, links, catalogURL) // every stage but CHECK, which the workers run
	require.Equal(t, len(urls), rep.Added)
	require.Eventually(t, func() bool {
		got, err := h.Store.LinkResultGet(t.Context(), urls)
		require.NoError(t, err)
		return len(got) == len(urls)
	}, 10*time.Minute, 20*time.Millisecond, "the workers store a check of every URL")

	site.mu.Lock()
	most, requests := site.maxInFlight, len(site.arrivals)
	site.mu.Unlock()
	require.GreaterOrEqual(t, requests, len(urls))
	require.LessOrEqual(t, most, 2, "requests in flight at once, over both workers")
	require.LessOrEqual(t, site.busiestSecond(), 10+2, "requests in one second, over both workers")
}
