package rdf_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

func TestFormatFor(t *testing.T) {
	for _, c := range []struct {
		ct, accept, name string
		want             rdf.Format
	}{
		{"text/turtle; charset=utf-8", "", "", rdf.Turtle},
		{"application/x-turtle", "application/rdf+xml", "x.rdf", rdf.Turtle},
		{"Application/Turtle", "", "", rdf.Turtle},
		{"text/n3", "", "", rdf.Turtle},
		{"application/n-triples", "", "", rdf.NTriples},
		{"text/plain", "", "", rdf.NTriples},
		{"application/n-quads", "", "", rdf.NQuads},
		{"text/n-quads", "", "", rdf.NQuads},
		{"application/trig", "", "", rdf.TriG},
		{"application/rdf+xml", "", "", rdf.RDFXML},
		{"application/xml", "", "", rdf.RDFXML},
		{"text/xml; charset=iso-8859-1", "", "", rdf.RDFXML},
		{"application/ld+json", "", "", rdf.JSONLD},
		{"application/json", "", "x.ttl", rdf.JSONLD},
		// the response does not decide: Accept's first known type
		{"application/octet-stream", "text/html, application/rdf+xml;q=0.9, text/turtle", "x.ttl", rdf.RDFXML},
		{"", "text/turtle", "x.rdf", rdf.Turtle},
		// then the extension
		{"", "", "https://example.org/catalog.ttl?page=2#x", rdf.Turtle},
		{"text/html", "*/*", "/data/catalog.RDF", rdf.RDFXML},
		{"", "", "a.nt", rdf.NTriples},
		{"", "", "a.nq", rdf.NQuads},
		{"", "", "a.trig", rdf.TriG},
		{"", "", "a.owl", rdf.RDFXML},
		{"", "", "a.xml", rdf.RDFXML},
		{"", "", "a.jsonld", rdf.JSONLD},
		{"", "", "a.json", rdf.JSONLD},
	} {
		got, err := rdf.FormatFor(c.ct, c.accept, c.name)
		require.NoError(t, err, "%+v", c)
		require.Equal(t, c.want, got, "%+v", c)
	}
	_, err := rdf.FormatFor("text/html", "*/*", "https://example.org/catalog")
	require.ErrorIs(t, err, rdf.ErrUnknownFormat)
	require.ErrorContains(t, err, "text/html")
}
