package rdf_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// TestEncoderRoundTrips: each syntax NewEncoder writes, written in two groups, parses back to
// the same graph (canonical N-Quads), with language tags, datatypes, blank nodes shared across
// groups, escapes, and predicates no prefix covers; RDF/XML writes a C0 control as U+FFFD and
// refuses a predicate that ends in no XML name.
func TestEncoderRoundTrips(t *testing.T) {
	ex := "http://example.org/"
	b := rdf.Blank("n1")
	groups := [][]rdf.Triple{
		{
			{S: rdf.IRI(ex + "a"), P: rdf.IRI(rdf.RDFType), O: rdf.IRI(ex + "Thing")},
			{S: rdf.IRI(ex + "a"), P: rdf.IRI("http://purl.org/dc/terms/title"), O: rdf.Literal("Tïtle \"q\" <x> & \\ \n\r\t", "", "en-GB")},
			{S: rdf.IRI(ex + "a"), P: rdf.IRI(ex + "other/p-1"), O: rdf.Literal("2026-12-07", "http://www.w3.org/2001/XMLSchema#date", "")},
			{S: rdf.IRI(ex + "a"), P: rdf.IRI(ex + "p"), O: b},
		},
		{
			{S: b, P: rdf.IRI(ex + "q"), O: rdf.Literal("in the second group", "", "")},
			{S: rdf.IRI(ex + "a?x=1&y=2"), P: rdf.IRI(ex + "p"), O: rdf.IRI(ex + "a")},
		},
	}
	var all []rdf.Triple
	for _, g := range groups {
		all = append(all, g...)
	}
	want, err := rdf.CanonicalNQuads(all)
	require.NoError(t, err)
	prefixes := map[string]string{"dct": "http://purl.org/dc/terms/", "ex": ex}
	for _, f := range []rdf.Format{rdf.Turtle, rdf.NTriples, rdf.RDFXML, rdf.JSONLD} {
		var buf bytes.Buffer
		enc, err := rdf.NewEncoder(&buf, f, prefixes)
		require.NoError(t, err)
		for _, g := range groups {
			require.NoError(t, enc.Encode(g))
		}
		require.NoError(t, enc.Close())
		var got []rdf.Triple
		require.NoError(t, rdf.Parse(bytes.NewReader(buf.Bytes()), f, ex, func(tr rdf.Triple) error {
			got = append(got, tr)
			return nil
		}), "%s:\n%s", f, buf.String())
		c, err := rdf.CanonicalNQuads(got)
		require.NoError(t, err)
		require.Equal(t, string(want), string(c), "%s:\n%s", f, buf.String())
	}

	var buf bytes.Buffer
	enc, err := rdf.NewEncoder(&buf, rdf.RDFXML, nil)
	require.NoError(t, err)
	require.NoError(t, enc.Encode([]rdf.Triple{{S: rdf.IRI(ex + "a"), P: rdf.IRI(ex + "p"), O: rdf.Literal("a\x01b", "", "")}}))
	require.NoError(t, enc.Close())
	require.True(t, strings.Contains(buf.String(), "a\uFFFDb"), buf.String())
	err = enc.Encode([]rdf.Triple{{S: rdf.IRI(ex + "a"), P: rdf.IRI(ex + "123/"), O: rdf.Literal("x", "", "")}})
	require.ErrorContains(t, err, "does not end in an XML name")
	_, err = rdf.NewEncoder(&buf, rdf.TriG, nil)
	require.ErrorIs(t, err, rdf.ErrUnsupportedFormat)
}
