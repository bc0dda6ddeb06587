package check

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkCheck10k is issue 38's speed scenario: 10,000 URLs on 250 loopback hosts (40 each),
// checked with the default per-host limits (2 at a time, 2 a second, so the ceiling is 250 × 2
// = 500 URLs/s; target ≥ 400). It reports URLs/s, the peak and final heap in use (sampled every
// 250 ms) and the peak goroutines, and fails if a host saw more than its limits. Run it alone:
//
//	go test -run '^$' -bench BenchmarkCheck10k -benchtime 1x ./stages/check
func BenchmarkCheck10k(b *testing.B) {
	const hosts, perHost = 250, 40
	site := make([]*testHost, hosts)
	var urls []string
	for h := range site {
		site[h] = newTestHost(b, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/csv")
		})
		for i := range perHost {
			urls = append(urls, fmt.Sprintf("%s/dataset/%d/data.csv", site[h].URL, i))
		}
	}
	for b.Loop() {
		c := newTestChecker(b, Config{})
		var peakHeap, peakGoroutines atomic.Uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			tick := time.NewTicker(250 * time.Millisecond)
			defer tick.Stop()
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				peakHeap.Store(max(peakHeap.Load(), m.HeapInuse))
				peakGoroutines.Store(max(peakGoroutines.Load(), uint64(runtime.NumGoroutine())))
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
		}()
		start := time.Now()
		results, err := c.Check(context.Background(), urls)
		elapsed := time.Since(start)
		close(stop)
		<-sampled
		if err != nil || len(results) != len(urls) {
			b.Fatalf("%d results of %d: %v", len(results), len(urls), err)
		}
		for _, r := range results {
			if !r.OK {
				b.Fatalf("%+v", r)
			}
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		b.ReportMetric(float64(len(urls))/elapsed.Seconds(), "urls/s")
		b.ReportMetric(float64(peakHeap.Load())/(1<<20), "heap-MiB-peak")
		b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MiB-end")
		b.ReportMetric(float64(peakGoroutines.Load()), "goroutines-peak")
	}
	for _, h := range site {
		h.requirePolite(b, 2, 2)
	}
}
