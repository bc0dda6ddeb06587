package rdf_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/rdf"
)

func parseAll(t *testing.T, name string, f rdf.Format, base string) []rdf.Triple {
	t.Helper()
	file, err := os.Open(corpustest.Path(t, name))
	require.NoError(t, err)
	defer file.Close()
	var ts []rdf.Triple
	require.NoError(t, rdf.Parse(file, f, base, func(tr rdf.Triple) error { ts = append(ts, tr); return nil }))
	return ts
}

func canon(t *testing.T, ts []rdf.Triple) string {
	t.Helper()
	b, err := rdf.CanonicalNQuads(ts)
	require.NoError(t, err)
	return string(b)
}

// TestCanonicalSameGraphTwoSyntaxes: the SEMIC HVD catalogue in Turtle and in JSON-LD is one
// graph (rdflib says isomorphic, corpus NOTES §16), so the canonical N-Quads are equal.
func TestCanonicalSameGraphTwoSyntaxes(t *testing.T) {
	ttl := canon(t, parseAll(t, "dcatap/semic-hvd-3.0-ms-catalogue.ttl", rdf.Turtle, "http://example.com/"))
	jsonld := canon(t, parseAll(t, "dcatap/semic-hvd-3.0-ms-catalogue.jsonld", rdf.JSONLD, "http://example.com/"))
	require.Equal(t, ttl, jsonld)
	require.Equal(t, 46, strings.Count(ttl, "\n"))
	require.Contains(t, ttl, "_:c14n0")
}

// TestCKANDemoTurtleAndRDFXML: ckan-demo's Turtle and RDF/XML differ only in the paging
// triples (the page URL's extension) — every other line of the canonical form is the same.
func TestCKANDemoTurtleAndRDFXML(t *testing.T) {
	strip := func(ts []rdf.Triple) []rdf.Triple {
		var out []rdf.Triple
		for _, tr := range ts {
			if !strings.Contains(tr.S.Value, "catalog.") && !strings.HasPrefix(tr.P.Value, "http://www.w3.org/ns/hydra/") {
				out = append(out, tr)
			}
		}
		return out
	}
	ttl := parseAll(t, "dcatap/ckan-demo-catalog-hydra.ttl", rdf.Turtle, "https://demo.ckan.org/")
	xml := parseAll(t, "dcatap/ckan-demo-catalog-hydra.rdf", rdf.RDFXML, "https://demo.ckan.org/")
	a, b := canon(t, strip(ttl)), canon(t, strip(xml))
	require.Equal(t, a, b)
	require.Greater(t, strings.Count(a, "\n"), 1700)
}

func TestCanonicalRelabelAndLiterals(t *testing.T) {
	doc := func(b1, b2 string) string {
		return `@prefix ex: <http://example.org/> .
ex:s ex:p _:` + b1 + ` . _:` + b1 + ` ex:q _:` + b2 + ` ; ex:v "quote \" back\\slash\nnew line\ttab é 😀"@EN-gb .
_:` + b2 + ` ex:r "x"^^ex:T , "plain" , """long
string""" .`
	}
	parse := func(s string) []rdf.Triple {
		var ts []rdf.Triple
		require.NoError(t, rdf.Parse(strings.NewReader(s), rdf.Turtle, "", func(tr rdf.Triple) error { ts = append(ts, tr); return nil }))
		return ts
	}
	a := canon(t, parse(doc("a", "b")))
	b := canon(t, parse(doc("zz9", "other")))
	require.Equal(t, a, b, "two relabellings give byte-identical canonical N-Quads")
	require.Contains(t, a, `"quote \" back\\slash\nnew line\ttab é 😀"@en-gb`)
	// Round trip: the canonical N-Quads parse back to the same literals.
	var back []rdf.Triple
	require.NoError(t, rdf.Parse(strings.NewReader(a), rdf.NQuads, "", func(tr rdf.Triple) error { back = append(back, tr); return nil }))
	require.Equal(t, a, canon(t, back))
	lits := map[rdf.Term]bool{}
	for _, tr := range back {
		if tr.O.IsLiteral() {
			lits[tr.O] = true
		}
	}
	require.True(t, lits[rdf.Literal("quote \" back\\slash\nnew line\ttab é 😀", "", "en-GB")])
	require.True(t, lits[rdf.Literal("long\nstring", "", "")])
	require.True(t, lits[rdf.Literal("x", "http://example.org/T", "")])
	// A different graph differs.
	require.NotEqual(t, a, canon(t, parse(strings.Replace(doc("a", "b"), `"plain"`, `"plain2"`, 1))))
}

func TestWriteNTriplesRoundTrip(t *testing.T) {
	ts := parseAll(t, "dcatap/geonetwork-sig-oreme-catalogrecords.rdf", rdf.RDFXML, "http://example.com/base/")
	var buf bytes.Buffer
	require.NoError(t, rdf.WriteNTriples(&buf, ts))
	require.Contains(t, buf.String(), `\u0020https`, "the space in GeoNetwork's rdf:resource is escaped")
	var back []rdf.Triple
	require.NoError(t, rdf.ParseRecord(&buf, func(tr rdf.Triple) error { back = append(back, tr); return nil }))
	require.Equal(t, canon(t, ts), canon(t, back))
}

func TestWriteTurtle(t *testing.T) {
	ts := parseAll(t, "dcatap/fdk-norway-nested-blank-nodes.ttl", rdf.Turtle, "http://example.com/")
	var buf bytes.Buffer
	require.NoError(t, rdf.WriteTurtle(&buf, ts, map[string]string{
		"dcat": "http://www.w3.org/ns/dcat#", "dct": "http://purl.org/dc/terms/", "unused": "http://unused.example/",
	}))
	out := buf.String()
	require.Contains(t, out, "@prefix dcat: <http://www.w3.org/ns/dcat#> .")
	require.NotContains(t, out, "unused")
	require.Contains(t, out, " a dcat:Dataset")
	var back []rdf.Triple
	require.NoError(t, rdf.Parse(strings.NewReader(out), rdf.Turtle, "", func(tr rdf.Triple) error { back = append(back, tr); return nil }), out)
	require.Equal(t, canon(t, ts), canon(t, back))
}

// TestWriteTurtleOrder pins the order WriteTurtle and a Turtle Encoder write, which a page of a
// feed's bytes (and its ETag) depend on: IRI subjects before blank nodes, each in the order of
// its N-Triples; rdf:type first, the other predicates by IRI; a predicate's objects in the
// order of their N-Triples (literals, then IRIs, then blank nodes), each triple once.
func TestWriteTurtleOrder(t *testing.T) {
	ex := func(s string) rdf.Term { return rdf.IRI("http://example.org/" + s) }
	b := rdf.Blank("b1")
	ts := []rdf.Triple{
		{S: b, P: ex("p"), O: rdf.Literal("z", "", "")},
		{S: ex("s2"), P: ex("q"), O: ex("o2")},
		{S: ex("s1"), P: ex("p"), O: rdf.Blank("b1")},
		{S: ex("s1"), P: ex("p"), O: ex("o2")},
		{S: ex("s1"), P: ex("p"), O: rdf.Literal("b", "", "")},
		{S: ex("s1"), P: rdf.IRI(rdf.RDFType), O: ex("C")},
		{S: ex("s1"), P: ex("p"), O: ex("o1")},
		{S: ex("s1"), P: ex("p"), O: rdf.Literal("a", "", "en")},
		{S: ex("s1"), P: ex("p"), O: ex("o2")}, // again
		{S: ex("s1"), P: ex("a"), O: rdf.Literal("a\"b\\c\nd", "", "")},
		{S: ex("s2"), P: ex("q"), O: ex("o1 x")},
		{S: ex("s1"), P: ex("p"), O: rdf.Literal("b", "", "")}, // again
	}
	want := `@prefix ex: <http://example.org/> .

ex:s1 a ex:C ;
    ex:a "a\"b\\c\nd" ;
    ex:p "a"@en, "b", ex:o1, ex:o2, _:b1 .

ex:s2 ex:q <http://example.org/o1\u0020x>, ex:o2 .

_:b1 ex:p "z" .
`
	var buf bytes.Buffer
	require.NoError(t, rdf.WriteTurtle(&buf, ts, map[string]string{"ex": "http://example.org/"}))
	require.Equal(t, want, buf.String())

	buf.Reset()
	enc, err := rdf.NewEncoder(&buf, rdf.Turtle, map[string]string{"ex": "http://example.org/"})
	require.NoError(t, err)
	require.NoError(t, enc.Encode(ts))
	require.NoError(t, enc.Close())
	require.Equal(t, want+"\n", buf.String())
}
