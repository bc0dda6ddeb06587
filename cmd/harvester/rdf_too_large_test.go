package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// A dataset whose graph grows past the record triple cap (here: a chain of 100,000 blank
// nodes hung on it) is a RecordTooLarge error row naming it, and its stored record stays live:
// it was an error row with no identifier, and the dataset was deleted as gone.
func TestRDFRecordOverTripleCapIsKept(t *testing.T) {
	t.Parallel()
	b := setup(t)
	site := newRDFSite(t)
	const url = "http://big.test/catalog.nt"
	const head = `<http://big.test/c> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/dcat#Catalog> .
<http://big.test/c> <http://www.w3.org/ns/dcat#dataset> <http://big.test/d1> .
<http://big.test/c> <http://www.w3.org/ns/dcat#dataset> <http://big.test/d2> .
<http://big.test/d1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/dcat#Dataset> .
<http://big.test/d2> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/dcat#Dataset> .
<http://big.test/d1> <http://purl.org/dc/terms/title> "one" .
<http://big.test/d2> <http://purl.org/dc/terms/title> "two" .
`
	site.serve(url, "application/n-triples", []byte(head))
	first, code := b.harvestRDF(t, site, url, "--option", "shacl_profile=none")
	mustComplete(t, first, code)
	require.Equal(t, 2, first.Added)

	var chain strings.Builder
	chain.WriteString(head)
	chain.WriteString("<http://big.test/d1> <http://ex.org/p> _:c0 .\n")
	for i := range 100_000 {
		fmt.Fprintf(&chain, "_:c%d <http://ex.org/next> _:c%d .\n", i, i+1)
	}
	site.serve(url, "application/n-triples", []byte(chain.String()))
	second, code := b.harvestRDF(t, site, url, "--option", "shacl_profile=none")
	mustComplete(t, second, code)
	require.Zero(t, second.Deleted, "nothing is deleted")
	require.Equal(t, 1, second.Errored)
	require.Equal(t, 1, second.Unchanged)
	errs, _, err := b.st.RecordErrorList(t.Context(), &store.RecordErrorListParams{JobID: second.JobID})
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Equal(t, "RecordTooLarge", errs[0].Type)
	require.Contains(t, errs[0].Message, "http://big.test/d1")
	require.Contains(t, errs[0].Message, "more than 100000 triples")
	require.Equal(t, []string{"http://big.test/d1", "http://big.test/d2"}, liveIdentifiers(t, b.st, first.SourceID))
}
