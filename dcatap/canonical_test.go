package dcatap

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/piprate/json-gold/ld"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/rdf"
)

// jsonldGraph turns a corpus JSON-LD file into a graph through json-gold's toRDF (inline
// contexts only: the loader fetches nothing) and our N-Quads parser. Package rdf will parse
// JSON-LD itself; this keeps the test independent of when.
func jsonldGraph(t *testing.T, name string) *rdf.MemGraph {
	t.Helper()
	b, err := os.ReadFile(corpustest.Path(t, "dcatap/"+name))
	require.NoError(t, err)
	var doc any
	require.NoError(t, json.Unmarshal(b, &doc))
	opts := ld.NewJsonLdOptions("http://example.com/")
	opts.Format = "application/n-quads"
	opts.DocumentLoader = noLoader{}
	nq, err := ld.NewJsonLdProcessor().ToRDF(doc, opts)
	require.NoError(t, err)
	g := rdf.NewMemGraph()
	require.NoError(t, rdf.ParseGraph(strings.NewReader(nq.(string)), rdf.NQuads, "", g))
	return g
}

type noLoader struct{}

func (noLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, "no remote contexts in tests: "+u)
}

func recordsNQuads(t *testing.T, g rdf.Graph) map[string]string {
	t.Helper()
	out := map[string]string{}
	byKey, _ := splitAll(t, g)
	for k, r := range byKey {
		if r.Problem != "" {
			out[k] = r.Problem
			continue
		}
		nq, h, err := Canonical(r.Triples)
		require.NoError(t, err)
		sum := sha256.Sum256(nq)
		require.Equal(t, hex.EncodeToString(sum[:]), h)
		out[k] = string(nq)
	}
	return out
}

// The SEMIC HVD catalogue in Turtle and in JSON-LD (isomorphic, other blank labels) gives the
// same N-Quads for every catalog and record.
func TestCanonicalSameGraphTwoSyntaxes(t *testing.T) {
	ttl := recordsNQuads(t, parseCorpus(t, "semic-hvd-3.0-ms-catalogue.ttl"))
	jsonld := recordsNQuads(t, jsonldGraph(t, "semic-hvd-3.0-ms-catalogue.jsonld"))
	assert.Equal(t, ttl, jsonld)
	assert.Equal(t, []string{"dataset https://data.exampleMS.gov/id/dataset/1T2p3o4B"}, keysOf(ttl))
	joined := strings.Join(values(ttl), "")
	assert.Contains(t, joined, GenidPath, "the catalogue's blank nodes are skolemized")
}

func keysOf(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func values(m map[string]string) []string {
	var vs []string
	for _, v := range m {
		vs = append(vs, v)
	}
	return vs
}

// With no blank nodes, our canonical N-Quads are URDNA2015's (json-gold's) byte for byte, on
// every record of the corpus's DCAT-AP files that parse.
func TestCanonicalIsURDNA2015(t *testing.T) {
	for _, name := range []string{"semic-hvd-3.0-ms-catalogue.ttl", "fdk-harvest-response-0.ttl",
		"ckan-demo-catalog-hydra.ttl", "dcat-ap-no-2.0-examples.ttl", "semic-2.1.1-example1.nt"} {
		byKey, _ := splitAll(t, parseCorpus(t, name))
		for k, r := range byKey {
			if r.Problem != "" {
				continue
			}
			nq, _, err := Canonical(r.Triples)
			require.NoError(t, err)
			if strings.ContainsAny(string(nq), "\t\b\f") {
				continue // json-gold escapes these, RDF 1.1 canonical N-Triples does not
			}
			opts := ld.NewJsonLdOptions("")
			opts.Algorithm = ld.AlgorithmURDNA2015
			opts.InputFormat = "application/n-quads"
			opts.Format = "application/n-quads"
			want, err := ld.NewJsonLdProcessor().Normalize(string(nq), opts)
			require.NoError(t, err)
			assert.Equal(t, want, string(nq), "%s %s", name, k)
		}
	}
}

func TestCanonicalErrorsAndOrder(t *testing.T) {
	iri, lit := rdf.IRI("http://ex.org/a"), rdf.Literal("x", "", "")
	_, _, err := Canonical([]rdf.Triple{{S: rdf.Blank("b"), P: iri, O: lit}})
	assert.ErrorIs(t, err, ErrBlankNode)
	_, _, err = Canonical([]rdf.Triple{{S: iri, P: iri, O: rdf.Blank("b")}})
	assert.ErrorIs(t, err, ErrBlankNode)
	_, _, err = Canonical([]rdf.Triple{{S: lit, P: iri, O: lit}})
	assert.ErrorIs(t, err, ErrInvalidTriple)
	_, _, err = Canonical([]rdf.Triple{{S: iri, P: lit, O: lit}})
	assert.ErrorIs(t, err, ErrInvalidTriple)
	_, _, err = Canonical([]rdf.Triple{{S: iri, P: iri}})
	assert.ErrorIs(t, err, ErrInvalidTriple)

	nq, h, err := Canonical(nil)
	require.NoError(t, err)
	assert.Empty(t, nq)
	assert.Equal(t, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", h)

	b := rdf.IRI("http://ex.org/b")
	nq, _, err = Canonical([]rdf.Triple{{S: b, P: iri, O: rdf.Literal("line\n\"two\"", "", "EN")}, {S: iri, P: iri, O: b}, {S: iri, P: iri, O: b}})
	require.NoError(t, err)
	assert.Equal(t, "<http://ex.org/a> <http://ex.org/a> <http://ex.org/b> .\n<http://ex.org/b> <http://ex.org/a> \"line\\n\\\"two\\\"\"@en .\n", string(nq))
}
