package dcatap

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/rdf"
)

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
	jsonld := recordsNQuads(t, parseCorpus(t, "semic-hvd-3.0-ms-catalogue.jsonld"))
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

// With no blank nodes, our canonical N-Quads are URDNA2015's (rdf.CanonicalNQuads, json-gold)
// byte for byte, on every record and catalog of every corpus DCAT-AP file that parses, but for
// characters json-gold writes raw and rdf.Term.NTriples escapes so that the line parses back
// (control characters other than \t \n \r in literals, a space in an IRI): there Canonical
// keeps the parseable form.
func TestCanonicalIsURDNA2015(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "dcatap", "*"))
	require.NoError(t, err)
	compared := 0
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "INVALID-") {
			continue
		}
		byKey, _ := splitAll(t, parseCorpus(t, name))
		for k, r := range byKey {
			if r.Problem != "" {
				continue
			}
			nq, _, err := Canonical(r.Triples)
			require.NoError(t, err)
			want, err := rdf.CanonicalNQuads(r.Triples)
			require.NoError(t, err)
			if strings.Contains(string(nq), `\u00`) {
				assert.NotEqual(t, string(want), string(nq), "%s %s", name, k)
				continue
			}
			assert.Equal(t, string(want), string(nq), "%s %s", name, k)
			compared++
		}
	}
	assert.Greater(t, compared, 200)
}

// The demo.ckan.org page in Turtle and in RDF/XML: the same records (NOTES.md §16: only the
// paging triples differ, and they are in no record).
func TestCanonicalCKANDemoTurtleAndRDFXML(t *testing.T) {
	ttl := recordsNQuads(t, parseCorpus(t, "ckan-demo-catalog-hydra.ttl"))
	xml := recordsNQuads(t, parseCorpus(t, "ckan-demo-catalog-hydra.rdf"))
	assert.Len(t, ttl, 101)
	assert.Equal(t, ttl, xml)
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
