package feeds

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harvester-dev/harvester/internal/cputime"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/feeds/feedstest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// BenchmarkDataJSON serves /data.json of HARVESTER_BENCH_DATASETS (default 100,000) live
// datasets from SQLite over HTTP, read whole by a client, and reports datasets/s and how far
// the process's RSS (sampled every 5 ms while serving) and heap in use rose above idle (after
// seeding and a GC), and datasets per CPU second of the whole process (server and client: the
// measure that holds on a shared machine). Issue 35's target: ≥ 20,000 datasets/s with RSS within +20 MiB of idle.
// The datasets are the valid records of GSA's corpus data.json, repeated with new identifiers.
// Run: go test -run '^$' -bench DataJSON -benchtime 3x ./feeds/ (docs/benchmarks.md).
func BenchmarkDataJSON(b *testing.B) {
	n := 100000
	if v := os.Getenv("HARVESTER_BENCH_DATASETS"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(b, err)
	}
	ctx := b.Context()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	require.NoError(b, err)
	defer st.Close()
	require.NoError(b, st.Migrate(ctx))
	seedBench(b, st, n)
	for _, gz := range []bool{false, true} {
		b.Run(fmt.Sprintf("gzip=%v", gz), func(b *testing.B) {
			f := &DataJSON{Store: st}
			srv := httptest.NewServer(feedHandler(f, DataJSONParams{Version: DCATUS11, Path: "/data.json"}))
			defer srv.Close()
			runtime.GC()
			debug.FreeOSMemory()
			idleRSS, idleHeap := rss(), heapInuse()
			var peakRSS, peakHeap atomic.Int64
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				t := time.NewTicker(5 * time.Millisecond)
				defer t.Stop()
				for {
					select {
					case <-stop:
						return
					case <-t.C:
						if r := rss(); r > peakRSS.Load() {
							peakRSS.Store(r)
						}
						if h := heapInuse(); h > peakHeap.Load() {
							peakHeap.Store(h)
						}
					}
				}
			}()
			var bytesRead int64
			cpu0 := cputime.Self()
			b.ResetTimer()
			for range b.N {
				req, _ := http.NewRequest(http.MethodGet, srv.URL+"/data.json", nil)
				if gz {
					req.Header.Set("Accept-Encoding", "gzip")
				}
				resp, err := http.DefaultTransport.RoundTrip(req) // not decompressed: the client's cost is not ours
				require.NoError(b, err)
				c, err := io.Copy(io.Discard, resp.Body)
				require.NoError(b, err)
				resp.Body.Close()
				require.Equal(b, strconv.Itoa(0), resp.Trailer.Get(SkippedHeader))
				bytesRead += c
			}
			b.StopTimer()
			cpu := cputime.Self() - cpu0
			close(stop)
			<-done
			const mib = 1 << 20
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "datasets/s")
			b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "datasets/cpu-s")
			b.ReportMetric(float64(max(0, peakRSS.Load()-idleRSS))/mib, "rss-growth-MiB")
			b.ReportMetric(float64(max(0, peakHeap.Load()-idleHeap))/mib, "heap-growth-MiB")
			b.ReportMetric(float64(bytesRead)/float64(b.N)/mib, "MiB/op")
		})
	}
}

// seedBench stores n live datasets of one federal source: the records of GSA's corpus data.json
// valid as DCAT-US 1.1 federal, cycled.
func seedBench(b *testing.B, st store.Store, n int) {
	b.Helper()
	v, err := dcatus.NewValidator(string(harvest.SchemaDCATUS11Federal))
	require.NoError(b, err)
	_, size := feedstest.Seed(b, st, "dcatus/agency-gsa-2025-07.data.json", n, func(raw []byte) bool {
		p, err := v.Validate(raw)
		return err == nil && len(p) == 0
	})
	b.Logf("seeded %d datasets, %.0f bytes each on average", n, size)
}

// rss is the process's resident set size in bytes (VmRSS of /proc/self/status; 0 elsewhere).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func heapInuse() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
