package dcatapfeed_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harvester-dev/harvester/internal/cputime"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/feeds/feedstest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// rssKiB is this process's resident set size (Linux /proc/self/status VmRSS), 0 elsewhere.
func rssKiB() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// BenchmarkTurtlePages: the whole catalog of HARVESTER_BENCH_DATASETS live datasets (default
// 100,000, corpus records of VA's data.json under new identifiers, on SQLite) read as Turtle
// pages of 1,000 by hydra:next through an HTTP server, as a harvester reads it. It reports
// datasets/s and the resident memory the walk added over the idle process (peak, MiB), sampled
// after every page, and datasets per CPU second of the process (server and client: a figure a
// busy machine moves less than the wall-clock rate). Not a timed test: docs/benchmarks.md keeps its figures.
//
//	go test -run '^$' -bench TurtlePages -benchtime 1x ./feeds/dcatapfeed/
func BenchmarkTurtlePages(b *testing.B) {
	n := 100_000
	if v := os.Getenv("HARVESTER_BENCH_DATASETS"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(b, err)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "h.db"))
	require.NoError(b, err)
	defer st.Close()
	require.NoError(b, st.Migrate(ctx))
	seedBench(b, st, n)
	srv := feedServer(&testing.T{}, st, feeds.Catalog{Title: "Bench"})
	defer srv.Close()

	runtime.GC()
	debug.FreeOSMemory()
	idle := rssKiB()
	b.ResetTimer()
	for range b.N {
		start, cpu0 := time.Now(), cputime.Self()
		peak, datasets, pages := idle, 0, 0
		for url := srv.URL + "/catalog.ttl?page_size=1000"; url != ""; pages++ {
			resp, err := http.Get(url)
			require.NoError(b, err)
			url = ""
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 1<<20), 64<<20)
			for sc.Scan() {
				line := sc.Text()
				if strings.Contains(line, "hydra:next") {
					url = line[strings.Index(line, "<")+1 : strings.LastIndex(line, ">")]
				}
				if strings.HasPrefix(line, "<") && strings.Contains(line, "> a dcat:Dataset") {
					datasets++
				}
			}
			require.NoError(b, sc.Err())
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			peak = max(peak, rssKiB())
		}
		elapsed, cpu := time.Since(start), cputime.Self()-cpu0
		require.Equal(b, n, datasets, "every dataset once")
		b.ReportMetric(float64(datasets)/elapsed.Seconds(), "datasets/s")
		b.ReportMetric(float64(datasets)/cpu.Seconds(), "datasets/cpu_s")
		b.ReportMetric(float64(peak-idle)/1024, "peak_rss_over_idle_MiB")
		b.ReportMetric(float64(pages), "pages")
	}
}

// seedBench writes n live datasets of one source: VA's corpus records, cycled.
func seedBench(b *testing.B, st store.Store, n int) {
	feedstest.Seed(b, st, "dcatus/agency-va-2025-07.data.json", n, nil)
}
