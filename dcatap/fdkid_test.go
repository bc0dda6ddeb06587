package dcatap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// FDK's stored catalog records carry the fdkId of their primary topic as dct:identifier: each
// is FdkID of the topic's IRI (so FDK's ids are name-based, not random).
func TestFdkIDMatchesFDKCatalogRecords(t *testing.T) {
	g := parseCorpus(t, "fdk-catalog-0-stored-skolemized-with-records.ttl")
	seen := 0
	require.NoError(t, g.Match(rdf.Term{}, rdf.IRI("http://xmlns.com/foaf/0.1/primaryTopic"), rdf.Term{}, func(tr rdf.Triple) error {
		return g.Match(tr.S, rdf.IRI("http://purl.org/dc/terms/identifier"), rdf.Term{}, func(id rdf.Triple) error {
			assert.Equal(t, id.O.Value, FdkID(tr.O.Value), tr.O.Value)
			assert.Contains(t, tr.S.Value, id.O.Value, "the record IRI ends in the fdkId")
			seen++
			return nil
		})
	}))
	assert.Equal(t, 2, seen)
	assert.Equal(t, "a1c680ca-62d7-34d5-aa4c-d39b5db033ae", FdkID(fdkDataset0))
	assert.Equal(t, "6e4237cc-98d6-3e7c-a892-8ac1f0ffb37f", FdkID(fdkCatalog0))
	// Java: UUID.nameUUIDFromBytes("".getBytes(UTF_8)); a non-ASCII IRI hashes its UTF-8 bytes.
	assert.Equal(t, "d41d8cd9-8f00-3204-a980-0998ecf8427e", FdkID(""))
	assert.Equal(t, "65d654c1-a547-3721-96c1-ee32cdd00321", FdkID("https://data.norge.no/æøå"))
}
