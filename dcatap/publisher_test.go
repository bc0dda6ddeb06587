package dcatap

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// A catalog's publisher's name, by language preference, from the catalog's graph. (No corpus
// catalog names a publisher with a name: FDK's name it by IRI, SEMIC's types its catalogue
// dcat:Catalogue, which is no DCAT class.)
func TestPublisherName(t *testing.T) {
	ex := func(s string) rdf.Term { return rdf.IRI("http://ex.org/" + s) }
	name := rdf.IRI(agentNames[0])
	cat := &Resource{Kind: KindCatalog, IRI: "http://ex.org/cat", Triples: []rdf.Triple{
		{S: ex("cat"), P: rdf.IRI(DCTPublisher), O: ex("agency")},
		{S: ex("agency"), P: name, O: rdf.Literal("Direktoratet", "", "nb")},
		{S: ex("agency"), P: name, O: rdf.Literal("The Directorate", "", "en-GB")},
	}}
	require.Equal(t, "The Directorate", PublisherName(cat, []string{"en"}), "en matches en-GB")
	require.Equal(t, "Direktoratet", PublisherName(cat, []string{"nb", "en"}))
	require.Equal(t, "The Directorate", PublisherName(cat, []string{"fr"}), "no preferred language: the least by tag (en-gb)")
	require.Empty(t, PublisherName(&Resource{Kind: KindCatalog, IRI: "http://ex.org/cat"}, nil))
}
