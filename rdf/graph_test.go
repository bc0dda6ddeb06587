package rdf_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// generateNTriples writes n triples of a synthetic DCAT catalog to w: datasets of 10 triples
// (a type, a title with a language, a description with quotes, a keyword, an issued date,
// a distribution blank node with 3 triples, and the catalog link).
func generateNTriples(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for i := 0; i < n; i++ {
		d, k := i/10, i%10
		ds := fmt.Sprintf("<https://data.example.org/dataset/%d>", d)
		var line string
		switch k {
		case 0:
			line = ds + " <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/dcat#Dataset> ."
		case 1:
			line = ds + fmt.Sprintf(` <http://purl.org/dc/terms/title> "Dataset number %d"@en .`, d)
		case 2:
			line = ds + fmt.Sprintf(` <http://purl.org/dc/terms/description> "A \"quoted\" description of dataset %d,\nwith a second line." .`, d)
		case 3:
			line = ds + fmt.Sprintf(` <http://www.w3.org/ns/dcat#keyword> "keyword-%d" .`, d%500)
		case 4:
			line = ds + fmt.Sprintf(` <http://purl.org/dc/terms/issued> "2024-01-%02d"^^<http://www.w3.org/2001/XMLSchema#date> .`, 1+d%28)
		case 5:
			line = ds + fmt.Sprintf(" <http://www.w3.org/ns/dcat#distribution> _:dist%d .", d)
		case 6:
			line = fmt.Sprintf("_:dist%d <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/dcat#Distribution> .", d)
		case 7:
			line = fmt.Sprintf("_:dist%d <http://www.w3.org/ns/dcat#accessURL> <https://data.example.org/files/%d.csv> .", d, d)
		case 8:
			line = fmt.Sprintf(`_:dist%d <http://www.w3.org/ns/dcat#mediaType> <https://www.iana.org/assignments/media-types/text/csv> .`, d)
		case 9:
			line = "<https://data.example.org/catalog> <http://www.w3.org/ns/dcat#dataset> " + ds + " ."
		}
		if _, err := bw.WriteString(line + "\n"); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func streamNTriples(n int) io.Reader {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(generateNTriples(pw, n)) }()
	return pr
}

func count(t *testing.T, g rdf.Graph, s, p, o rdf.Term) int {
	t.Helper()
	n := 0
	require.NoError(t, g.Match(s, p, o, func(rdf.Triple) error { n++; return nil }))
	return n
}

// TestGraphSpills checks that NewGraph past its threshold answers exactly as a MemGraph does,
// with its terms in memory and with them in its file (whose name is gone once open).
func TestGraphSpills(t *testing.T) {
	t.Run("terms in memory", testGraphSpills)
	t.Run("terms in the file", func(t *testing.T) {
		defer rdf.SetTermArena(4096, 8192)()
		testGraphSpills(t)
	})
}

func testGraphSpills(t *testing.T) {
	const n = 25000 // 2,500 datasets
	dir := t.TempDir()
	g, err := rdf.NewGraph(dir, 1000)
	require.NoError(t, err)
	mem := rdf.NewMemGraph()
	require.NoError(t, rdf.Parse(streamNTriples(n), rdf.NTriples, "", func(tr rdf.Triple) error {
		require.NoError(t, mem.Add(tr))
		return g.Add(tr)
	}))
	require.True(t, g.(interface{ Spilled() bool }).Spilled())
	files, _ := os.ReadDir(dir)
	require.Empty(t, files, "the spill file has no name once open: a process killed leaves nothing behind (issue 25 D22)")
	// Adding again changes nothing: a set.
	require.NoError(t, mem.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error {
		if tr.S.IsBlank() {
			return nil // blank nodes of another parse are other nodes
		}
		return g.Add(tr)
	}))
	require.Equal(t, n, g.Len())
	require.Equal(t, mem.Len(), g.Len())

	ds := rdf.IRI("https://data.example.org/dataset/7")
	typ, dcatDataset := rdf.IRI(rdf.RDFType), rdf.IRI("http://www.w3.org/ns/dcat#Dataset")
	catalog := rdf.IRI("https://data.example.org/catalog")
	for _, c := range [][3]rdf.Term{
		{ds, {}, {}}, {ds, rdf.IRI("http://purl.org/dc/terms/title"), {}}, {{}, typ, dcatDataset},
		{{}, {}, ds}, {catalog, {}, {}}, {{}, {}, {}}, {{}, typ, {}}, {ds, typ, dcatDataset},
		{{}, {}, rdf.Literal("keyword-7", "", "")}, {{}, {}, rdf.IRI("https://nowhere.example/")},
	} {
		require.Equal(t, count(t, mem, c[0], c[1], c[2]), count(t, g, c[0], c[1], c[2]), "%v", c)
	}
	require.Equal(t, 2500, count(t, g, rdf.Term{}, typ, dcatDataset))
	// Terms come back exactly (language, datatype, escapes).
	var title, desc, issued rdf.Term
	require.NoError(t, g.Match(ds, rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error {
		switch tr.P.Value {
		case "http://purl.org/dc/terms/title":
			title = tr.O
		case "http://purl.org/dc/terms/description":
			desc = tr.O
		case "http://purl.org/dc/terms/issued":
			issued = tr.O
		}
		return nil
	}))
	require.Equal(t, rdf.Literal("Dataset number 7", "", "en"), title)
	require.Equal(t, rdf.Literal("A \"quoted\" description of dataset 7,\nwith a second line.", "", ""), desc)
	require.Equal(t, rdf.Literal("2024-01-08", "http://www.w3.org/2001/XMLSchema#date", ""), issued)
	// Match inside Match (a closure walk): the catalog's datasets, then each one's triples.
	walked := 0
	require.NoError(t, g.Match(catalog, rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error {
		return g.Match(tr.O, rdf.Term{}, rdf.Term{}, func(rdf.Triple) error { walked++; return nil })
	}))
	require.Equal(t, 2500*6, walked)
	// A Match of every triple frees the id table: a lookup or a new term after it makes it again.
	require.Equal(t, n, count(t, g, rdf.Term{}, rdf.Term{}, rdf.Term{}))
	extra := rdf.Triple{S: ds, P: rdf.IRI("http://e.org/new"), O: rdf.Literal("new", "", "")}
	require.NoError(t, mem.Add(extra))
	require.NoError(t, g.Add(extra))
	require.Equal(t, n+1, g.Len())
	require.Equal(t, n+1, count(t, g, rdf.Term{}, rdf.Term{}, rdf.Term{}))
	for _, c := range [][3]rdf.Term{{ds, {}, {}}, {{}, extra.P, {}}, {{}, {}, extra.O}, {catalog, {}, {}}, {{}, typ, dcatDataset}} {
		require.Equal(t, count(t, mem, c[0], c[1], c[2]), count(t, g, c[0], c[1], c[2]), "%v", c)
	}
	// fn's error stops the walk and comes back.
	stop := fmt.Errorf("stop")
	require.ErrorIs(t, g.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(rdf.Triple) error { return stop }), stop)
	require.NoError(t, g.Close())
	files, _ = os.ReadDir(dir)
	require.Empty(t, files, "Close removes the spill file")
}

// The id table made again after a Match of every triple is sized to the terms (1.5 slots a term,
// not a power of two): every term is found in it, and terms added after it grow it (twice, from
// that size) and are found too.
func TestGraphIDTableRebuilt(t *testing.T) {
	g, err := rdf.NewGraph(t.TempDir(), 0)
	require.NoError(t, err)
	defer g.Close()
	p := rdf.IRI("http://e.org/p")
	triple := func(i int) rdf.Triple {
		return rdf.Triple{S: rdf.IRI(fmt.Sprintf("http://e.org/s/%d", i)), P: p, O: rdf.Literal(fmt.Sprintf("o %d", i), "", "")}
	}
	const n = 30_000 // 60,001 terms: a table of 90,001 slots once made again
	for i := range n {
		require.NoError(t, g.Add(triple(i)))
	}
	require.Equal(t, n, count(t, g, rdf.Term{}, rdf.Term{}, rdf.Term{}), "a Match of every triple drops the table")
	for i := range n {
		tr := triple(i)
		require.Equal(t, 1, count(t, g, tr.S, rdf.Term{}, rdf.Term{}), "%v", tr.S)
		require.Equal(t, 1, count(t, g, rdf.Term{}, rdf.Term{}, tr.O), "%v", tr.O)
	}
	require.Zero(t, count(t, g, rdf.IRI("http://e.org/s/none"), rdf.Term{}, rdf.Term{}))
	const more = 200_000 // past 67,500 and 135,000 terms: the table grows twice
	for i := n; i < n+more; i++ {
		require.NoError(t, g.Add(triple(i)))
	}
	require.Equal(t, n+more, g.Len())
	for i := 0; i < n+more; i += 7 {
		tr := triple(i)
		require.Equal(t, 1, count(t, g, tr.S, p, rdf.Term{}), "%v", tr.S)
	}
	require.NoError(t, g.Add(triple(n/2)))
	require.Equal(t, n+more, g.Len(), "a term of the rebuilt table is found, not added again")
}

func TestGraphStaysInMemoryUnderThreshold(t *testing.T) {
	dir := t.TempDir()
	g, err := rdf.NewGraph(dir, 1000)
	require.NoError(t, err)
	require.NoError(t, rdf.Parse(streamNTriples(1000), rdf.NTriples, "", g.Add))
	require.False(t, g.(interface{ Spilled() bool }).Spilled())
	files, _ := os.ReadDir(dir)
	require.Empty(t, files)
	require.Equal(t, 1000, g.Len())
	require.NoError(t, g.Close())
}

// peakRSS returns the process's peak resident set (VmHWM) in MiB, or 0 where /proc has none.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkGraph1M parses a generated 1,000,000-triple N-Triples stream into
// NewGraph(dir, 50000) and reports the peak Go heap (sampled every 10 ms) and the peak RSS
// of the process. Run alone: go test -run '^$' -bench Graph1M -benchtime 1x ./rdf/
func BenchmarkGraph1M(b *testing.B) {
	for i := 0; i < b.N; i++ {
		var peakHeap atomic.Uint64
		done := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				select {
				case <-done:
					return
				case <-time.After(10 * time.Millisecond):
				}
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peakHeap.Load() {
					peakHeap.Store(ms.HeapInuse)
				}
			}
		}()
		g, err := rdf.NewGraph(b.TempDir(), 50000)
		if err != nil {
			b.Fatal(err)
		}
		if err := rdf.Parse(streamNTriples(1000000), rdf.NTriples, "", g.Add); err != nil {
			b.Fatal(err)
		}
		if g.Len() != 1000000 {
			b.Fatalf("Len %d", g.Len())
		}
		n := 0
		g.Match(rdf.Term{}, rdf.IRI(rdf.RDFType), rdf.IRI("http://www.w3.org/ns/dcat#Dataset"), func(rdf.Triple) error { n++; return nil })
		if n != 100000 {
			b.Fatalf("datasets %d", n)
		}
		close(done)
		g.Close()
		b.ReportMetric(float64(peakHeap.Load())/(1<<20), "peak-heap-MiB")
		b.ReportMetric(peakRSS(), "peak-RSS-MiB")
	}
}

// TestGraphSpillCountsRepeatsInABatch: on disk, triples are inserted many to a statement; one
// repeated within a statement, or given again before Len, is still one triple.
func TestGraphSpillCountsRepeatsInABatch(t *testing.T) {
	g, err := rdf.NewGraph(t.TempDir(), 0)
	require.NoError(t, err)
	defer g.Close()
	p := rdf.IRI("http://e/p")
	a := rdf.Triple{S: rdf.IRI("http://e/a"), P: p, O: rdf.Literal("1", "", "")}
	for i := range 100 {
		require.NoError(t, g.Add(a))
		require.NoError(t, g.Add(rdf.Triple{S: rdf.Blank("b" + strconv.Itoa(i%10)), P: p, O: a.S}))
	}
	require.Equal(t, 11, g.Len())
	require.Equal(t, 11, count(t, g, rdf.Term{}, rdf.Term{}, rdf.Term{}))
	require.NoError(t, g.Add(a))
	require.Equal(t, 11, g.Len())
}
