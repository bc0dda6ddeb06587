package dcatap

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

const owner = "http://ex.org/ds"

func skolemNT(t *testing.T, ttl string) string {
	t.Helper()
	out := Skolemize(owner, triplesOf(t, parseString(t, ttl)))
	for _, tr := range out {
		require.False(t, tr.S.IsBlank() || tr.O.IsBlank(), "blank node left: %s", tr.NTriples())
	}
	return ntriples(out)
}

func genids(nt string) map[string]bool {
	ids := map[string]bool{}
	for _, f := range strings.Fields(nt) {
		if strings.Contains(f, GenidPath) {
			ids[f] = true
		}
	}
	return ids
}

// FDK sorts the characters of a node's N3, so these two periods got one IRI.
func TestSkolemizeAnagramsDiffer(t *testing.T) {
	a := skolemNT(t, `<http://ex.org/ds> <http://purl.org/dc/terms/temporal> [ <http://www.w3.org/ns/dcat#startDate> "2019-04-02" ] .`)
	b := skolemNT(t, `<http://ex.org/ds> <http://purl.org/dc/terms/temporal> [ <http://www.w3.org/ns/dcat#startDate> "2019-02-04" ] .`)
	assert.NotEqual(t, genids(a), genids(b))
	for id := range genids(a) {
		assert.True(t, strings.HasPrefix(id, "<http://ex.org"+GenidPath), id)
		assert.Len(t, strings.TrimSuffix(id[strings.LastIndex(id, "/")+1:], ">"), 32)
	}
}

func TestSkolemizeCycles(t *testing.T) {
	for name, ttl := range map[string][2]string{
		"two-cycle": {
			`_:a <http://ex.org/p> _:b . _:b <http://ex.org/p> _:a . <http://ex.org/ds> <http://ex.org/q> _:a .`,
			`_:y <http://ex.org/p> _:x . <http://ex.org/ds> <http://ex.org/q> _:y . _:x <http://ex.org/p> _:y .`,
		},
		"self-loop": {
			`_:a <http://ex.org/p> _:a . _:a <http://ex.org/v> "1" .`,
			`_:zz <http://ex.org/v> "1" . _:zz <http://ex.org/p> _:zz .`,
		},
		"three-cycle with values": {
			`_:a <http://ex.org/p> _:b . _:b <http://ex.org/p> _:c . _:c <http://ex.org/p> _:a .
			 _:a <http://ex.org/v> "1" . _:b <http://ex.org/v> "2" . _:c <http://ex.org/v> "3" .
			 _:c <http://ex.org/child> [ <http://ex.org/v> "leaf" ] .`,
			`_:n3 <http://ex.org/p> _:n1 . _:n1 <http://ex.org/v> "1" . _:n2 <http://ex.org/p> _:n3 .
			 _:n1 <http://ex.org/p> _:n2 . _:n3 <http://ex.org/v> "3" . _:n2 <http://ex.org/v> "2" .
			 _:n3 <http://ex.org/child> _:leaf . _:leaf <http://ex.org/v> "leaf" .`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			a, b := skolemNT(t, ttl[0]), skolemNT(t, ttl[1])
			assert.Equal(t, a, b, "invariant under relabelling and order")
			assert.Equal(t, a, ntriples(Skolemize(owner, relabel(triplesOf(t, parseString(t, ttl[0])), "r"))))
		})
	}
	// The three nodes of the valued cycle are told apart (and the leaf too).
	assert.Len(t, genids(skolemNT(t, `_:a <http://ex.org/p> _:b . _:b <http://ex.org/p> _:c . _:c <http://ex.org/p> _:a .
		_:a <http://ex.org/v> "1" . _:b <http://ex.org/v> "2" . _:c <http://ex.org/v> "3" . _:c <http://ex.org/child> [ <http://ex.org/v> "leaf" ] .`)), 4)
	// Nodes that differ only in their distance to the one marked node need refinement rounds to
	// be told apart (and must not be merged): four nodes, four IRIs, five triples.
	ring := skolemNT(t, `_:a <http://ex.org/p> _:b . _:b <http://ex.org/p> _:c . _:c <http://ex.org/p> _:d . _:d <http://ex.org/p> _:a . _:a <http://ex.org/v> "x" .`)
	assert.Len(t, genids(ring), 4)
	assert.Equal(t, 5, strings.Count(ring, "\n"))
	// A rotation of the values is another graph only up to isomorphism: the same output.
	assert.Equal(t,
		skolemNT(t, `_:a <http://ex.org/p> _:b . _:b <http://ex.org/p> _:c . _:c <http://ex.org/p> _:a . _:a <http://ex.org/v> "1" . _:b <http://ex.org/v> "2" . _:c <http://ex.org/v> "3" .`),
		skolemNT(t, `_:a <http://ex.org/p> _:b . _:b <http://ex.org/p> _:c . _:c <http://ex.org/p> _:a . _:b <http://ex.org/v> "1" . _:c <http://ex.org/v> "2" . _:a <http://ex.org/v> "3" .`))
	// A reversed cycle is a different graph.
	assert.NotEqual(t,
		skolemNT(t, `_:a <http://ex.org/p> _:b . _:b <http://ex.org/p> _:c . _:c <http://ex.org/p> _:a . _:a <http://ex.org/v> "1" . _:b <http://ex.org/v> "2" . _:c <http://ex.org/v> "3" .`),
		skolemNT(t, `_:a <http://ex.org/p> _:c . _:c <http://ex.org/p> _:b . _:b <http://ex.org/p> _:a . _:a <http://ex.org/v> "1" . _:b <http://ex.org/v> "2" . _:c <http://ex.org/v> "3" .`))
}

// Identical blank subtrees collapse into one IRI, as FDK's do.
func TestSkolemizeNestedCollapsesIdenticalSubtrees(t *testing.T) {
	ts := triplesOf(t, parseCorpus(t, "fdk-norway-nested-blank-nodes.ttl"))
	out := Skolemize("https://test.no/catalogs/910258028/datasets/nested", ts)
	nt := ntriples(out)
	assert.Len(t, genids(nt), 3+1+1, "three rules (their dct:type differs), one LegalResource, one Concept")
	assert.Equal(t, 1, strings.Count(nt, "<http://data.europa.eu/eli/ontology#LegalResource> ."))
	assert.Less(t, len(out), len(ts))
}

// The nested fixture parsed twice, and re-serialized as N-Triples with other blank labels and
// the reverse order, gives the same records: skolem IRIs and source_hashes.
func TestSkolemizeStableAcrossRunsAndSyntaxes(t *testing.T) {
	run := func(g rdf.Graph) map[string]string {
		out := map[string]string{}
		byKey, _ := splitAll(t, g)
		for k, r := range byKey {
			nq, h, err := Canonical(r.Triples)
			require.NoError(t, err)
			out[k] = h + "\n" + string(nq)
		}
		return out
	}
	first := run(parseCorpus(t, "fdk-norway-nested-blank-nodes.ttl"))
	second := run(parseCorpus(t, "fdk-norway-nested-blank-nodes.ttl"))
	assert.Equal(t, first, second)

	nt := ntriples(relabel(triplesOf(t, parseCorpus(t, "fdk-norway-nested-blank-nodes.ttl")), "other"))
	require.Contains(t, nt, "_:otherx")
	g := rdf.NewMemGraph()
	require.NoError(t, rdf.ParseGraph(strings.NewReader(nt), rdf.NTriples, "", g))
	assert.Equal(t, first, run(g))
	assert.Len(t, first, 2)
	assert.Contains(t, first["dataset https://test.no/catalogs/910258028/datasets/nested"], "/.well-known/genid/")
}

func TestSkolemizeOwnerAndNoBlanks(t *testing.T) {
	ts := triplesOf(t, parseString(t, `<http://ex.org/a> <http://ex.org/p> [ <http://ex.org/q> "x" ] .`))
	assert.Equal(t, ntriples(Skolemize("http://ex.org/ds/", ts)), ntriples(Skolemize("http://ex.org/ds", ts)),
		"a trailing slash of the owner is dropped")
	assert.Equal(t, ntriples(Skolemize("http://ex.org/other#x", ts)), ntriples(Skolemize(owner, ts)),
		"skolem IRIs are on the owner's authority")
	assert.NotEqual(t, ntriples(Skolemize("http://other.org/ds", ts)), ntriples(Skolemize(owner, ts)))
	assert.Contains(t, ntriples(Skolemize("urn:x:ds/", ts)), "<urn:x:ds"+GenidPath, "no authority: the IRI of earlier releases")

	plain := triplesOf(t, parseString(t, `<http://ex.org/b> <http://ex.org/p> "2" . <http://ex.org/a> <http://ex.org/p> "1" . <http://ex.org/a> <http://ex.org/p> "1" .`))
	out := Skolemize(owner, plain)
	assert.Equal(t, "<http://ex.org/a> <http://ex.org/p> \"1\" .\n<http://ex.org/b> <http://ex.org/p> \"2\" .\n", ntriples(out))
	assert.Equal(t, "<http://ex.org/b>", plain[0].S.NTriples(), "the input is not reordered")
	assert.Empty(t, Skolemize(owner, nil))
}

// Item 29 of issue 25: skolem IRIs are RDF 1.1 §3.5's, on the record's authority, never in a
// fragment; the source_hash is of the form earlier releases stored (<record>/.well-known/genid/),
// so an unchanged record is not "updated" by the move.
func TestSkolemIRIsOnAuthorityKeepStoredHashes(t *testing.T) {
	const record = "https://data.example.no/catalog#ds1"
	ts := triplesOf(t, parseString(t, `<https://data.example.no/catalog#ds1> <http://ex.org/p> [ <http://ex.org/q> "x" ; <http://ex.org/r> [ <http://ex.org/q> "y" ] ] ;
		<http://ex.org/s> "<https://data.example.no/.well-known/genid/0123456789abcdef0123456789abcdef>" .`))
	nq, _, err := Canonical(Skolemize(record, ts))
	require.NoError(t, err)
	ids := genids(string(nq))
	delete(ids, `"<https://data.example.no/.well-known/genid/0123456789abcdef0123456789abcdef>"`) // the literal
	require.Len(t, ids, 2)
	for id := range ids {
		assert.Regexp(t, `^<https://data\.example\.no/\.well-known/genid/[0-9a-f]{32}>$`, id)
	}

	// What earlier releases stored: the same hashes under <record>/.well-known/genid/.
	legacy := strings.ReplaceAll(string(nq), "<https://data.example.no/.well-known/genid/", "<"+record+"/.well-known/genid/")
	legacy = strings.Replace(legacy, record+"/.well-known/genid/0123456789abcdef0123456789abcdef", "https://data.example.no/.well-known/genid/0123456789abcdef0123456789abcdef", 1) // a literal is no IRI
	lines := strings.SplitAfter(legacy, "\n")
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "")))
	assert.Equal(t, hex.EncodeToString(sum[:]), SourceHash(record, nq))

	// No skolem IRI, or no authority: the hash of the bytes.
	plain := []byte("<urn:x:a> <http://ex.org/p> \"1\" .\n")
	sum = sha256.Sum256(plain)
	assert.Equal(t, hex.EncodeToString(sum[:]), SourceHash("urn:x:a", plain))
	assert.Equal(t, hex.EncodeToString(sum[:]), SourceHash(record, plain))
}
