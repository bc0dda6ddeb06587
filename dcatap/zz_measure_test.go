package dcatap

import (
	"os"
	"testing"
	"time"

	"github.com/harvester-dev/harvester/rdf"
)

func TestZZMeasure(t *testing.T) {
	file := os.Getenv("MEASURE_FILE")
	if file == "" {
		t.Skip()
	}
	f, _ := os.Open(file)
	g, err := rdf.NewGraph(t.TempDir(), 50000)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := rdf.ParseGraph(f, rdf.NTriples, "", g); err != nil {
		t.Fatal(err)
	}
	t.Log("parse", time.Since(t0))
	t0 = time.Now()
	h, err := GraphHash(g)
	t.Log("graphhash", time.Since(t0), h, err)
	t0 = time.Now()
	err = Split(g, func(r *Resource) error { t.Log(r.Kind, r.IRI, r.Problem, len(r.Triples)); return nil })
	t.Log("split", time.Since(t0), err)
}
