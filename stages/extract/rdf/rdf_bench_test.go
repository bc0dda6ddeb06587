package rdf

import (
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harvester-dev/harvester/internal/cputime"
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

// blankChainJSONLD is blankChainTTL(n) as JSON-LD: an inline @context and a top-level @graph
// of one node object per node, `{"@id": "_:b7", "ex:next": {"@id": "_:b8"}}` (52 bytes a node
// around 1,000,000, so the 250 MB document of issue 34 item 5 is about 5,000,000 nodes).
func blankChainJSONLD(n int) string {
	var b strings.Builder
	b.WriteString(`{"@context": {"dcat": "http://www.w3.org/ns/dcat#", "dct": "http://purl.org/dc/terms/", "ex": "http://e.org/ns/"},` + "\n")
	b.WriteString(`"@graph": [` + "\n")
	b.WriteString(`{"@id": "http://e.org/cat", "@type": "dcat:Catalog", "dcat:dataset": {"@id": "http://e.org/d1"}},` + "\n")
	b.WriteString(`{"@id": "http://e.org/d1", "@type": "dcat:Dataset", "dct:title": "T", "ex:first": {"@id": "_:b0"}}`)
	for i := range n {
		b.WriteString(",\n" + `{"@id": "_:b` + strconv.Itoa(i) + `", "ex:next": {"@id": "_:b` + strconv.Itoa(i+1) + `"}}`)
	}
	b.WriteString("\n]}\n")
	return b.String()
}

// memPeak samples, every 50 ms until stopped, the in-use heap (HeapInuse: live objects and
// garbage not yet collected, so it moves with GOGC) and the live heap the last garbage
// collection marked (/gc/heap/live:bytes), and returns the highest of each; listed, the highest
// live heap marked once listing (when not nil) has said the listing has begun (its first record
// sent: the graph read, Split's catalogs and records found).
func memPeak(listing func() bool) (stop func() (inuse, live, listed uint64)) {
	var inuse, live, listed uint64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
		var begun uint64 // the cycle count when the listing was first seen to have begun
		for {
			runtime.ReadMemStats(&m)
			metrics.Read(s)
			inuse = max(inuse, m.HeapInuse)
			if s[0].Value.Kind() == metrics.KindUint64 {
				live = max(live, s[0].Value.Uint64())
				switch {
				case begun == 0 && listing != nil && listing():
					begun = s[1].Value.Uint64() + 1
				case begun != 0 && s[1].Value.Uint64() > begun: // a cycle that began after it
					listed = max(listed, s[0].Value.Uint64())
				}
			}
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() (uint64, uint64, uint64) { close(done); wg.Wait(); return inuse, live, listed }
}

// benchmarkRDFDocument runs EXTRACT (SQLite store) on an rdf source serving doc as file,
// reporting the peak in-use heap, the peak live heap above the heap before the run (which holds
// the generated document), and the CPU time of the process (which a machine busy with other
// work moves far less than the wall time).
func benchmarkRDFDocument(b *testing.B, file, doc string) {
	b.SetBytes(int64(len(doc)))
	var inuse, live uint64
	var cpu time.Duration
	for b.Loop() {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		base := m.HeapAlloc
		stop := memPeak(nil)
		c := cputime.Self()
		r := runRDF(b, file, doc, nil)
		cpu += cputime.Self() - c
		i, l, _ := stop()
		inuse, live = max(inuse, i), max(live, max(l, base)-base)
		if r.err != nil {
			b.Fatal(r.err)
		}
	}
	b.ReportMetric(float64(inuse)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(live)/(1<<20), "peak-live-MiB")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkRDFBlankChain runs EXTRACT on an rdf source serving blankChainTTL(n). The dataset's
// record passes the record triple cap and is a RecordTooLarge row; what costs is reading,
// splitting and fingerprinting the chain.
func BenchmarkRDFBlankChain(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			benchmarkRDFDocument(b, "catalog.ttl", blankChainTTL(n))
		})
	}
}

// BenchmarkRDFBlankChainJSONLD is BenchmarkRDFBlankChain on blankChainJSONLD(n): the JSON-LD
// reader converts the @graph's node objects one at a time, so time and memory grow with n; the
// 250 MB document of issue 34 item 5 (5,000,000 nodes) is BenchmarkRDFJSONLD250MB's chain.
func BenchmarkRDFBlankChainJSONLD(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			benchmarkRDFDocument(b, "catalog.jsonld", blankChainJSONLD(n))
		})
	}
}
