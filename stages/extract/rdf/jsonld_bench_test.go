package rdf

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/cputime"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/extract/extracttest"
	"github.com/harvester-dev/harvester/store"
)

// The 250 MB JSON-LD document of issue 34 item 5 (under the 1 GiB fetch cap), in two shapes,
// written to a file and read by EXTRACT as a file source: a catalog of many datasets and a
// chain of blank nodes. The size in MB is HARVESTER_BENCH_JSONLD_MB (default 250), as the
// generators guess it: at 250 the catalog is 313 MB (209,715 datasets) and the chain 271 MB
// (5,041,230 nodes); docs/benchmarks.md has the figures.

// jsonldCatalogContext is the @context of the catalog shape: prefixes and a few terms with a
// type mapping, as DCAT-AP publishers write them.
const jsonldCatalogContext = `{"@context": {"dcat": "http://www.w3.org/ns/dcat#", "dct": "http://purl.org/dc/terms/",
"foaf": "http://xmlns.com/foaf/0.1/", "vcard": "http://www.w3.org/2006/vcard/ns#",
"xsd": "http://www.w3.org/2001/XMLSchema#", "adms": "http://www.w3.org/ns/adms#",
"accessURL": {"@id": "dcat:accessURL", "@type": "@id"}, "downloadURL": {"@id": "dcat:downloadURL", "@type": "@id"},
"modified": {"@id": "dct:modified", "@type": "xsd:dateTime"}, "keyword": {"@id": "dcat:keyword"}},
"@graph": [
`

// writeJSONLDCatalog writes a DCAT-AP catalog of datasets (each about 1.5 KB of JSON-LD:
// literals with and without a language or a datatype, IRIs, a contact point and two
// distributions as blank nodes) until the file passes size bytes; it returns the datasets.
func writeJSONLDCatalog(w *bufio.Writer, size int64) int {
	n := int(size / 1250)
	w.WriteString(jsonldCatalogContext)
	w.WriteString(`{"@id": "https://data.example.org/catalog", "@type": "dcat:Catalog", "dct:title": {"@value": "Example catalog", "@language": "en"}, "dcat:dataset": [`)
	for i := range n {
		if i > 0 {
			w.WriteString(", ")
		}
		fmt.Fprintf(w, `{"@id": "https://data.example.org/dataset/%d"}`, i)
	}
	w.WriteString("]}")
	for i := range n {
		fmt.Fprintf(w, `,
{"@id": "https://data.example.org/dataset/%[1]d", "@type": "dcat:Dataset", "dct:identifier": "ds-%[1]d",
 "dct:title": [{"@value": "Air quality measurements, station %[1]d", "@language": "en"}, {"@value": "Luftqualität, Station %[1]d", "@language": "de"}],
 "dct:description": {"@value": "Hourly concentrations of NO2, O3, PM10 and PM2.5 measured at station %[1]d of the regional network since 2001. Values are validated monthly; the last month is provisional.", "@language": "en"},
 "keyword": ["air quality", "NO2", "ozone", "particulate matter", "station %[2]d"],
 "dct:publisher": {"@id": "https://data.example.org/org/%[2]d"}, "dcat:theme": {"@id": "http://publications.europa.eu/resource/authority/data-theme/ENVI"},
 "dct:issued": {"@value": "2020-01-%02[3]d", "@type": "xsd:date"}, "modified": "2026-11-%02[3]dT08:00:00Z",
 "dcat:contactPoint": {"@type": "vcard:Organization", "vcard:fn": "Air team %[2]d", "vcard:hasEmail": {"@id": "mailto:air%[2]d@example.org"}},
 "dcat:distribution": [
  {"@type": "dcat:Distribution", "dct:title": "CSV, %[1]d", "accessURL": "https://data.example.org/dataset/%[1]d/csv", "downloadURL": "https://files.example.org/%[1]d.csv", "dct:format": {"@id": "http://publications.europa.eu/resource/authority/file-type/CSV"}, "dcat:byteSize": {"@value": "%[4]d", "@type": "xsd:decimal"}},
  {"@type": "dcat:Distribution", "dct:title": "API, %[1]d", "accessURL": "https://api.example.org/air/%[1]d", "dcat:mediaType": {"@id": "https://www.iana.org/assignments/media-types/application/json"}}]}`,
			i, i%500, 1+i%28, 1000+i)
	}
	w.WriteString("\n]}\n")
	return n
}

// writeJSONLDChain writes blankChainJSONLD's document of as many nodes as pass size bytes; it
// returns the nodes.
func writeJSONLDChain(w *bufio.Writer, size int64) int {
	w.WriteString(`{"@context": {"dcat": "http://www.w3.org/ns/dcat#", "dct": "http://purl.org/dc/terms/", "ex": "http://e.org/ns/"},` + "\n")
	w.WriteString(`"@graph": [` + "\n")
	w.WriteString(`{"@id": "http://e.org/cat", "@type": "dcat:Catalog", "dcat:dataset": {"@id": "http://e.org/d1"}},` + "\n")
	w.WriteString(`{"@id": "http://e.org/d1", "@type": "dcat:Dataset", "dct:title": "T", "ex:first": {"@id": "_:b0"}}`)
	n := int(size / 52)
	for i := range n {
		w.WriteString(",\n" + `{"@id": "_:b` + strconv.Itoa(i) + `", "ex:next": {"@id": "_:b` + strconv.Itoa(i+1) + `"}}`)
	}
	w.WriteString("\n]}\n")
	return n
}

// discardPublisher acks every message at once and keeps only a count, so that a benchmark's
// memory is EXTRACT's, not its collector's.
type discardPublisher struct{ n atomic.Int64 }

func (p *discardPublisher) Publish(_ string, msgs ...*harvest.Message) error {
	p.n.Add(int64(len(msgs)))
	return nil
}

func (p *discardPublisher) Close() error { return nil }

// peakRSS resets the kernel's peak resident set of the process (clear_refs 5) and returns a
// function that reads it (VmHWM), in bytes; 0 where /proc does not tell.
func peakRSS() func() uint64 {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return func() uint64 {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return 0
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
				kb, _ := strconv.ParseUint(f[1], 10, 64)
				return kb << 10
			}
		}
		return 0
	}
}

// BenchmarkRDFJSONLD250MB runs EXTRACT (SQLite store, the default extract.Config) on a file
// source of a generated JSON-LD document of HARVESTER_BENCH_JSONLD_MB megabytes (250), in the
// two shapes, reporting the wall time, the CPU time of the process, the peak in-use and live
// heap (memPeak), the peak live heap while the records are listed (listing-live-MiB: from the
// first record sent on; what a whole harvest runs beside) and the peak resident set of the
// process (VmHWM after a reset).
func BenchmarkRDFJSONLD250MB(b *testing.B) {
	mb := int64(250)
	if s := os.Getenv("HARVESTER_BENCH_JSONLD_MB"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		require.NoError(b, err)
		mb = v
	}
	for _, shape := range []struct {
		name  string
		write func(*bufio.Writer, int64) int
	}{{"catalog", writeJSONLDCatalog}, {"chain", writeJSONLDChain}} {
		b.Run(shape.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "catalog.jsonld")
			f, err := os.Create(path)
			require.NoError(b, err)
			w := bufio.NewWriterSize(f, 1<<20)
			nodes := shape.write(w, mb<<20)
			require.NoError(b, w.Flush())
			require.NoError(b, f.Close())
			fi, err := os.Stat(path)
			require.NoError(b, err)
			b.SetBytes(fi.Size())
			st := openSQLite(b)
			ctx := context.Background()
			src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: path,
				SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP})
			require.NoError(b, err)
			var wall, cpu time.Duration
			var inuse, live, listed, rss uint64
			var published int64
			for b.Loop() {
				job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobForceHarvest})
				require.NoError(b, err)
				pub := &discardPublisher{}
				h := newHandler(st, pub, fetch.Config{}, func(c *extract.Config) { c.JobWindow = -1 })
				m, err := harvest.NewMessage(harvest.SubjectExtract, &harvest.Job{V: harvest.Version, JobID: job.ID,
					SourceID: src.ID, JobType: harvest.JobForceHarvest, SourceType: harvest.SourceRDF,
					SchemaType: harvest.SchemaDCATAP, URL: path})
				require.NoError(b, err)
				m.SetContext(ctx)
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				base := ms.HeapAlloc
				stop, rssOf := memPeak(func() bool { return pub.n.Load() > 0 }), peakRSS()
				c, t0 := cputime.Self(), time.Now()
				err = extracttest.AsRunner(ctx, st, pub, h.Handle(m))
				wall += time.Since(t0)
				cpu += cputime.Self() - c
				i, l, ll := stop()
				inuse, live, rss = max(inuse, i), max(live, max(l, base)-base), max(rss, rssOf())
				listed = max(listed, max(ll, base)-base)
				published += pub.n.Load()
				require.NoError(b, err)
			}
			b.Logf("%s: %d MB of JSON-LD, %d nodes, %d messages a run", shape.name, fi.Size()>>20, nodes, published/int64(b.N))
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s/op")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(inuse)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(live)/(1<<20), "peak-live-MiB")
			b.ReportMetric(float64(listed)/(1<<20), "listing-live-MiB")
			b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
		})
	}
}
