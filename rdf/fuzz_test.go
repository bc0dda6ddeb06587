package rdf_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/rdf"
)

// addCorpusSeeds adds every corpus file with one of exts as a seed, up to 24 KB (the fuzzer
// minimises every new input it keeps: large seeds stall it).
func addCorpusSeeds(f *testing.F, exts ...string) {
	for name := range corpusCounts {
		for _, ext := range exts {
			if strings.HasSuffix(name, ext) {
				b, err := os.ReadFile(corpustest.Path(f, name))
				if err != nil {
					f.Fatal(err)
				}
				if len(b) <= 24<<10 {
					f.Add(b)
				}
			}
		}
	}
}

func fuzzParse(f *testing.F, format rdf.Format) {
	f.Fuzz(func(t *testing.T, doc []byte) {
		n := 0
		err := rdf.Parse(bytes.NewReader(doc), format, "http://example.org/base/", func(rdf.Triple) error { n++; return nil })
		if err != nil && strings.Contains(err.Error(), "parser failed") {
			t.Fatalf("parser panicked: %v", err)
		}
	})
}

// FuzzParseTurtle: the Turtle parser never panics and always ends (errors are fine).
func FuzzParseTurtle(f *testing.F) {
	addCorpusSeeds(f, ".ttl")
	f.Add([]byte("@prefix : <#> . :a :b ( 1 [ :c \"x\"@en ] ) ; :d 1.5e3, true ; ."))
	fuzzParse(f, rdf.Turtle)
}

// FuzzParseTriG is FuzzParseTurtle for TriG.
func FuzzParseTriG(f *testing.F) {
	addCorpusSeeds(f, ".ttl")
	f.Add([]byte("@prefix : <#> . :g { :a :b :c . } GRAPH :h { :d :e :f }"))
	fuzzParse(f, rdf.TriG)
}

// FuzzParseRDFXML: the RDF/XML parser never panics.
func FuzzParseRDFXML(f *testing.F) {
	addCorpusSeeds(f, ".rdf")
	fuzzParse(f, rdf.RDFXML)
}

// FuzzParseJSONLD: json-gold behind Parse never panics (a panic would be recovered and
// reported as "parser failed", which fails the target).
func FuzzParseJSONLD(f *testing.F) {
	addCorpusSeeds(f, ".jsonld")
	fuzzParse(f, rdf.JSONLD)
}

// FuzzNTriplesRoundTrip: whatever Parse accepts as N-Triples, WriteNTriples writes back to
// N-Triples that parse to the same triples (blank nodes up to relabelling).
func FuzzNTriplesRoundTrip(f *testing.F) {
	addCorpusSeeds(f, ".nt")
	f.Add([]byte("<http://a> <http://b> \"x\\ty\\u0000\\U0001F600\"@EN .\n_:a <http://b> _:a .\n<http://a b> <http://b> \"\"^^<http://t> ."))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var first []rdf.Triple
		if err := rdf.Parse(bytes.NewReader(doc), rdf.NTriples, "", func(tr rdf.Triple) error {
			first = append(first, tr)
			return nil
		}); err != nil {
			return
		}
		var buf bytes.Buffer
		if err := rdf.WriteNTriples(&buf, first); err != nil {
			t.Fatal(err)
		}
		written := buf.String()
		var second []rdf.Triple
		if err := rdf.Parse(&buf, rdf.NTriples, "", func(tr rdf.Triple) error {
			second = append(second, tr)
			return nil
		}); err != nil {
			t.Fatalf("written N-Triples do not parse: %v\n%s", err, written)
		}
		a, b := relabel(first), relabel(second)
		if len(a) != len(b) {
			t.Fatalf("%d triples, %d after the round trip", len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("triple %d: %q became %q", i, a[i], b[i])
			}
		}
	})
}

// relabel writes ts as N-Triples lines with blank nodes renamed by first appearance.
func relabel(ts []rdf.Triple) []string {
	names := map[string]string{}
	name := func(t rdf.Term) rdf.Term {
		if !t.IsBlank() {
			return t
		}
		if _, ok := names[t.Value]; !ok {
			names[t.Value] = "n" + strconv.Itoa(len(names))
		}
		return rdf.Blank(names[t.Value])
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = rdf.Triple{S: name(t.S), P: name(t.P), O: name(t.O)}.NTriples()
	}
	return out
}
