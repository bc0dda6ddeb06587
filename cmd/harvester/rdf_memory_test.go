package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeMillionTriples writes an N-Triples DCAT-AP catalog of datasets datasets, each with
// perDataset triples (its own and its distributions'), and returns its path and triple count.
func writeMillionTriples(t *testing.T, datasets, perDataset int) (string, int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalog.nt")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	n := 0
	line := func(s, p, o string) {
		fmt.Fprintf(w, "%s %s %s .\n", s, p, o)
		n++
	}
	const (
		typ   = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
		dcat  = "http://www.w3.org/ns/dcat#"
		dct   = "http://purl.org/dc/terms/"
		cat   = "<https://data.example.org/catalog>"
		title = "<" + dct + "title>"
	)
	line(cat, typ, "<"+dcat+"Catalog>")
	line(cat, title, `"A generated catalog"@en`)
	line(cat, "<"+dct+"description>", `"One million triples"@en`)
	line(cat, "<"+dct+"publisher>", "<https://data.example.org/publisher>")
	for i := 0; i < datasets; i++ {
		d := fmt.Sprintf("<https://data.example.org/dataset/%d>", i)
		line(cat, "<"+dcat+"dataset>", d)
		line(d, typ, "<"+dcat+"Dataset>")
		line(d, title, fmt.Sprintf(`"Dataset %d of the generated catalog"@en`, i))
		line(d, "<"+dct+"description>", fmt.Sprintf(`"A dataset that exists to be counted: number %d."@en`, i))
		line(d, "<"+dct+"identifier>", fmt.Sprintf(`"gen-%d"`, i))
		line(d, "<"+dct+"issued>", `"2024-01-02"^^<http://www.w3.org/2001/XMLSchema#date>`)
		for k := 0; n < (i+1)*perDataset+4; k++ {
			if k%4 == 0 {
				dist := fmt.Sprintf("<https://data.example.org/dataset/%d/distribution/%d>", i, k/4)
				line(d, "<"+dcat+"distribution>", dist)
				line(dist, typ, "<"+dcat+"Distribution>")
				line(dist, "<"+dcat+"accessURL>", fmt.Sprintf("<https://data.example.org/files/%d/%d.csv>", i, k))
				line(dist, "<"+dct+"title>", fmt.Sprintf(`"File %d"@en`, k))
				continue
			}
			line(d, "<"+dcat+"keyword>", fmt.Sprintf(`"keyword %d-%d"@en`, i, k))
		}
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return path, n
}

// Issue 15: a 1,000,000-triple N-Triples source harvests with peak RSS under 300 MiB, the
// graph spilling to disk past --rdf-mem-triples.
func TestRDFMillionTriplesPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("a million triples through the pipeline")
	}
	b := setup(t)
	bin := buildBinary(t)
	path, triples := writeMillionTriples(t, 2_000, 500)
	require.GreaterOrEqual(t, triples, 1_000_000)

	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, "harvest", "--file", path, "--source-type", "rdf", "--schema-type", "dcat-ap",
		"--database-url", b.dbURL, "--nats-url", b.natsURL, "--format", "json",
		"--data-dir", t.TempDir(), "--opensearch-url", "")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	peakKiB, err := runMeasured(t, cmd) // the harvester's own peak, not the test process's
	require.NoError(t, err, "stderr: %s", errOut.String())
	var rep jobReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	require.Equal(t, "complete", rep.Status, "job errors: %v", rep.JobErrors)
	require.Equal(t, 2_000, rep.Added, "every dataset: %+v", rep.Counts)

	t.Logf("peak RSS harvesting %d triples (%d datasets): %d MiB", triples, rep.Added, peakKiB>>10)
	require.Less(t, peakKiB>>10, int64(300), "peak RSS in MiB")
}
