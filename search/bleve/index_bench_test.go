package bleve

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harvester-dev/harvester/internal/cputime"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

var (
	benchDocs    = flag.Int("bleve.docs", 5000, "documents BenchmarkIndex indexes per run")
	benchWriters = flag.Int("bleve.writers", 16, "concurrent writers in BenchmarkIndex (SYNC runs 16 handlers)")
)

// benchCatalogs are the real federal catalogs the benchmark's documents come from (the bench
// harness's, ../../bench/catalog.go).
var benchCatalogs = []string{"gsa", "dhs", "dol", "energy", "va", "cms"}

// benchDocuments returns n documents made with search.FromDataset from real DCAT-US records of
// the corpus (up to 2,000 of at most 8 KB, cycled), each with its own identifier and title.
func benchDocuments(b *testing.B, n int) []search.Document {
	type template struct {
		rec map[string]json.RawMessage
		org string
	}
	var templates []template
	for _, agency := range benchCatalogs {
		data, err := os.ReadFile(corpustest.Path(b, "dcatus/agency-"+agency+"-2025-07.data.json"))
		require.NoError(b, err)
		var cat struct {
			Dataset []json.RawMessage `json:"dataset"`
		}
		require.NoError(b, json.Unmarshal(data, &cat))
		for _, raw := range cat.Dataset {
			var rec map[string]json.RawMessage
			if len(raw) > 8<<10 || json.Unmarshal(raw, &rec) != nil || json.Unmarshal(rec["title"], new(string)) != nil {
				continue
			}
			templates = append(templates, template{rec: rec, org: strings.ToUpper(agency)})
		}
	}
	templates = templates[:min(len(templates), 2000)]
	require.NotEmpty(b, templates)
	docs := make([]search.Document, n)
	for i := range docs {
		t := templates[i%len(templates)]
		var title string
		_ = json.Unmarshal(t.rec["title"], &title)
		title = fmt.Sprintf("%s #%d", title, i)
		rec := make(map[string]json.RawMessage, len(t.rec))
		for k, v := range t.rec {
			rec[k] = v
		}
		rec["title"], _ = json.Marshal(title)
		rec["identifier"], _ = json.Marshal(fmt.Sprintf("bench-%07d", i))
		dcat, err := json.Marshal(rec)
		require.NoError(b, err)
		d := store.Dataset{ID: fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i), Slug: fmt.Sprintf("dataset-%d", i),
			SourceID: "bench-source", Identifier: fmt.Sprintf("bench-%07d", i), DCAT: dcat, RecordID: fmt.Sprintf("record-%d", i)}
		docs[i] = search.FromDataset(&d, t.org)
	}
	return docs
}

// quiesce waits until scorch's persister and merger have nothing left to do (its
// index_bgthreads_active stat) and returns scorch's stats then.
func quiesce(t testing.TB, x *Index) map[string]any {
	var m map[string]any
	require.Eventually(t, func() bool {
		m, _ = x.idx.StatsMap()["index"].(map[string]any)
		active, ok := m["index_bgthreads_active"].(bool)
		return ok && !active
	}, 5*time.Minute, 10*time.Millisecond)
	return m
}

// segments is how many segments the index is made of, from stats of quiesce.
func segments(m map[string]any) int {
	return int(m["TotFileSegmentsAtRoot"].(uint64) + m["TotMemorySegmentsAtRoot"].(uint64))
}

// benchQueries are what the API asks: full text, full text filtered by organization (that of
// the first documents, GSA, so that it matches at any -bleve.docs), and the unfiltered first
// page with its facets over every document.
var benchQueries = []struct {
	name  string
	query search.Query
}{
	{"text", search.Query{Text: "health care data"}},
	{"filtered", search.Query{Text: "data", Organization: "GSA"}},
	{"all", search.Query{}},
}

// BenchmarkIndex indexes -bleve.docs documents through a search.Batcher from -bleve.writers
// goroutines, as SYNC does, into a fresh index per run and settings variant, and reports the
// process CPU time per document it cost (cpu-ms/doc) including scorch's background persisting
// and merging until the index is quiescent, the wall rate, the segments left, the bytes the
// merger wrote (merged-MB: its write amplification), and the latency and CPU time of each of
// benchQueries on the result (text-µs, text-cpu-µs, …; the CPU time is the steadier figure on
// a busy machine), plus docs/batch. Run it alone (the CPU time is the whole process's), e.g.
//
//	go test ./search/bleve -run '^$' -bench Index -benchtime 1x -bleve.docs 10000
func BenchmarkIndex(b *testing.B) {
	docs := benchDocuments(b, *benchDocs)
	for _, v := range benchVariants {
		b.Run(v.name, func(b *testing.B) {
			var cpu, wall time.Duration
			var segs, batches int
			queryTime, queryCPU := make([]time.Duration, len(benchQueries)), make([]time.Duration, len(benchQueries))
			var mergedMB float64
			for i := range b.N {
				x, err := open(filepath.Join(b.TempDir(), fmt.Sprint(i)), v.settings)
				require.NoError(b, err)
				start, startCPU := time.Now(), cputime.Self()
				indexConcurrently(b, x, docs)
				m := quiesce(b, x)
				segs += segments(m)
				mergedMB += float64(m["TotFileMergeWrittenBytes"].(uint64)) / 1e6
				batches += int(m["TotBatches"].(uint64))
				cpu += cputime.Self() - startCPU
				wall += time.Since(start)
				for j, q := range benchQueries {
					qStart, qCPU := time.Now(), cputime.Self()
					for range 20 {
						res, err := x.Search(b.Context(), q.query)
						require.NoError(b, err)
						require.NotZero(b, res.Total, "query %+v", q)
					}
					queryTime[j] += time.Since(qStart) / 20
					queryCPU[j] += (cputime.Self() - qCPU) / 20
				}
				require.NoError(b, x.Close())
			}
			n := float64(b.N * len(docs))
			b.ReportMetric(float64(cpu.Microseconds())/1000/n, "cpu-ms/doc")
			b.ReportMetric(n/wall.Seconds(), "docs/s")
			b.ReportMetric(float64(segs)/float64(b.N), "segments")
			for j, q := range benchQueries {
				b.ReportMetric(float64(queryTime[j].Microseconds())/float64(b.N), q.name+"-µs")
				b.ReportMetric(float64(queryCPU[j].Microseconds())/float64(b.N), q.name+"-cpu-µs")
			}
			b.ReportMetric(mergedMB/float64(b.N), "merged-MB")
			b.ReportMetric(n/float64(batches), "docs/batch")
			b.ReportMetric(0, "ns/op") // one op is a whole run: cpu-ms/doc says it
		})
	}
}

// indexConcurrently puts docs through one Batcher from *benchWriters goroutines.
func indexConcurrently(b *testing.B, x *Index, docs []search.Document) {
	bat := search.NewBatcher(x, search.BatcherConfig{})
	defer bat.Close()
	var wg sync.WaitGroup
	next := make(chan int)
	for range *benchWriters {
		wg.Go(func() {
			for i := range next {
				if err := bat.Put(b.Context(), docs[i]); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for i := range docs {
		next <- i
	}
	close(next)
	wg.Wait()
}

// benchVariant is one set of scorch settings BenchmarkIndex measures.
type benchVariant struct {
	name     string
	settings map[string]any
}

// benchVariants are the settings compared in the package doc: scorch's defaults, ours
// (settings), and the alternatives tried.
var benchVariants = []benchVariant{
	{name: "scorch-defaults"},
	{name: "chosen", settings: settings()},
	{name: "floor-16", settings: mergePlan(map[string]any{"FloorSegmentSize": 16})},
	{name: "floor-100", settings: mergePlan(map[string]any{"FloorSegmentSize": 100})},
	{name: "floor-200", settings: mergePlan(map[string]any{"FloorSegmentSize": 200})},
	{name: "floor-50-tier-5", settings: mergePlan(map[string]any{"FloorSegmentSize": 50, "MaxSegmentsPerTier": 5, "SegmentsPerMergeTask": 5})},
}

// mergePlan is scorch settings with merge plan options o.
func mergePlan(o map[string]any) map[string]any { return map[string]any{"scorchMergePlanOptions": o} }

var (
	searchDocs = flag.Int("bleve.searchdocs", 100000, "documents BenchmarkSearch indexes before it searches")
	searchDir  = flag.String("bleve.searchdir", "", "BenchmarkSearch's index directory, kept between runs (default: a new temporary one)")
)

// searchQueries are what the public search asks: the first page without text (every facet
// over every document), common words, a phrase, filters, an exclusion, a bounding box and
// the sorts. BenchmarkSearch fills in the keyword and format filters with the catalog's most
// frequent values.
var searchQueries = []struct {
	name  string
	query search.Query
}{
	{"all", search.Query{}},
	{"words", search.Query{Text: "health care data"}},
	{"phrase", search.Query{Text: `"emergency management"`}},
	{"word-org", search.Query{Text: "data", Organization: "GSA"}},
	{"keyword-excl", search.Query{Filters: []search.Filter{{Field: search.FieldKeyword}, {Field: search.FieldFormat, Exclude: true}}}},
	{"bbox", search.Query{BBox: &search.BBox{West: -125, South: 24, East: -66, North: 50}}},
	{"modified", search.Query{Text: "data", Sort: search.SortModified}},
	{"title-page5", search.Query{Text: "survey", Sort: search.SortTitle, Page: 5}},
}

// BenchmarkSearch indexes -bleve.searchdocs documents (real DCAT-US records, benchDocuments;
// every tenth given an extent in the contiguous United States) in batches of 1,000, then runs
// each of searchQueries max(b.N, 50) times as the first search after a write (the answer cache
// emptied: cold-p50-ms, cold-p95-ms, and the CPU one took, cold-cpu-ms), then as many times again from the cache (cached-p95-ms),
// as the public search and GET /api/v1/search ask them (20 hits, five facets), and logs the
// memory the uninverted facet and sort fields hold at the end. docs/benchmarks.md has the
// figures, e.g.
//
//	go test ./search/bleve -run '^$' -bench BenchmarkSearch -benchtime 100x -timeout 60m
func BenchmarkSearch(b *testing.B) {
	dir := *searchDir
	if dir == "" {
		dir = b.TempDir()
	}
	x, err := open(dir, settings())
	require.NoError(b, err)
	defer x.Close()
	if n, err := x.idx.DocCount(); err == nil && n == 0 {
		docs := benchDocuments(b, *searchDocs)
		start := time.Now()
		for i := 0; i < len(docs); i += 1000 {
			var ops []search.Op
			for j := i; j < min(i+1000, len(docs)); j++ {
				if j%10 == 0 {
					w, s := -120+float64(j%50), 30+float64(j%15)
					docs[j].Extent = &search.Extent{West: w, South: s, East: w + 1, North: s + 1}
				}
				ops = append(ops, search.Op{ID: docs[j].ID, Doc: &docs[j]})
			}
			errs, err := x.Apply(b.Context(), ops)
			require.NoError(b, err)
			require.NoError(b, errors.Join(errs...))
		}
		quiesce(b, x)
		b.Logf("indexed %d documents in %s", len(docs), time.Since(start).Round(time.Second))
	}
	all, err := x.Search(b.Context(), search.Query{})
	require.NoError(b, err)
	b.Logf("%d documents", all.Total)
	defer func() { b.Logf("uninverted fields: %.1f MB", uninvertedMB(x)) }()
	for _, q := range searchQueries {
		for i, f := range q.query.Filters {
			if f.Value == "" && len(all.Facets[f.Field]) > 0 {
				q.query.Filters = slices.Clone(q.query.Filters)
				q.query.Filters[i].Value = all.Facets[f.Field][0].Value
			}
		}
		b.Run(q.name, func(b *testing.B) {
			n := max(b.N, 50)
			var coldCPU time.Duration
			run := func(cold bool) []time.Duration {
				var lat []time.Duration
				cpu0 := cputime.Self()
				defer func() {
					if cold {
						coldCPU = cputime.Self() - cpu0
					}
				}()
				for range n {
					if cold {
						x.cache.invalidate()
					}
					t0 := time.Now()
					res, err := x.Search(b.Context(), q.query)
					lat = append(lat, time.Since(t0))
					require.NoError(b, err)
					b.ReportMetric(float64(res.Total), "hits")
				}
				slices.Sort(lat)
				return lat
			}
			ms := func(lat []time.Duration, p float64) float64 {
				return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000
			}
			cold, cached := run(true), run(false)
			b.ReportMetric(ms(cold, 0.50), "cold-p50-ms")
			b.ReportMetric(ms(cold, 0.95), "cold-p95-ms")
			// The process's CPU a cold search took on average: what the machine's load does not
			// move, where the wall-clock percentiles wait for a core.
			b.ReportMetric(float64(coldCPU.Microseconds())/1000/float64(n), "cold-cpu-ms")
			b.ReportMetric(ms(cached, 0.95), "cached-p95-ms")
		})
	}
}

// uninvertedMB is the memory x's uninverted fields hold (their slices and term strings), in MB.
func uninvertedMB(x *Index) float64 {
	x.facets.mu.Lock()
	defer x.facets.mu.Unlock()
	var n int
	for _, fields := range x.facets.m {
		for _, u := range fields {
			n += 4 * (len(u.start) + len(u.ords) + len(u.posts) + len(u.docs))
			for _, t := range u.terms {
				n += 16 + len(t)
			}
		}
	}
	return float64(n) / 1e6
}
