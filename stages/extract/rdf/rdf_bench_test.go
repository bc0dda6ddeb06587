package rdf

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// blankChainTTL is a DCAT-AP catalog of one dataset whose ex:first is the head of a chain of n
// blank nodes, "_:b0 ex:next _:b1 . _:b1 ex:next _:b2 …" (issue 34 item 5: a 1,000,000-node
// chain is 38 MB).
func blankChainTTL(n int) string {
	var b strings.Builder
	b.WriteString(catalogTTL("", "http://e.org/d1"))
	b.WriteString("@prefix ex: <http://e.org/ns/> .\n<http://e.org/d1> ex:first _:b0 .\n")
	for i := range n {
		b.WriteString("_:b" + strconv.Itoa(i) + " ex:next _:b" + strconv.Itoa(i+1) + " .\n")
	}
	return b.String()
}

// heapPeak samples the in-use heap every 50 ms until stopped, and returns the highest sample.
func heapPeak() (stop func() uint64) {
	var peak uint64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak }
}

// BenchmarkRDFBlankChain runs EXTRACT on an rdf source serving blankChainTTL(n) (SQLite store),
// reporting the peak in-use heap. The dataset's record passes the record triple cap and is a
// RecordTooLarge row; what costs is reading, splitting and fingerprinting the chain.
func BenchmarkRDFBlankChain(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			doc := blankChainTTL(n)
			b.SetBytes(int64(len(doc)))
			var peak uint64
			for b.Loop() {
				runtime.GC()
				stop := heapPeak()
				r := runRDF(b, "catalog.ttl", doc, nil)
				peak = max(peak, stop())
				if r.err != nil {
					b.Fatal(r.err)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}
