package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// growCatalog is an N-Triples catalog of the datasets <http://grow.test/g0>, g1 and g2, where
// g0 has a distribution with extra literals (0: none).
func growCatalog(extra int) []byte {
	const (
		typ  = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
		dcat = "http://www.w3.org/ns/dcat#"
		dct  = "http://purl.org/dc/terms/"
	)
	var b bytes.Buffer
	cat := "<http://grow.test/catalog>"
	fmt.Fprintf(&b, "%s %s <%sCatalog> .\n", cat, typ, dcat)
	for i := range 3 {
		d := fmt.Sprintf("<http://grow.test/g%d>", i)
		fmt.Fprintf(&b, "%s <%sdataset> %s .\n", cat, dcat, d)
		fmt.Fprintf(&b, "%s %s <%sDataset> .\n", d, typ, dcat)
		fmt.Fprintf(&b, "%s <%stitle> \"Dataset %d\"@en .\n", d, dct, i)
	}
	if extra > 0 {
		dist := "<http://grow.test/g0/distribution>"
		fmt.Fprintf(&b, "<http://grow.test/g0> <%sdistribution> %s .\n", dcat, dist)
		fmt.Fprintf(&b, "%s %s <%sDistribution> .\n", dist, typ, dcat)
		for k := range extra {
			fmt.Fprintf(&b, "%s <%skeyword> \"k%d\" .\n", dist, dcat, k)
		}
	}
	return b.Bytes()
}

// Issue 25 S5: a live dataset whose graph grows past the record triple cap (100,000) is an
// error row with its own IRI as identifier, and stays live: it is not deleted.
func TestRDFDatasetOverTripleCapIsKept(t *testing.T) {
	t.Parallel()
	b := setup(t)
	site := newRDFSite(t)
	const url = "http://grow.test/catalog.nt"
	opts := []string{"--option", "shacl_profile=none"}
	site.serve(url, "application/n-triples", growCatalog(0))
	first, code := b.harvestRDF(t, site, url, opts...)
	mustComplete(t, first, code)
	require.Equal(t, 3, first.Added)
	live := liveIdentifiers(t, b.st, first.SourceID)

	site.serve(url, "application/n-triples", growCatalog(101_000))
	second, code := b.harvestRDF(t, site, url, opts...)
	mustComplete(t, second, code)
	require.Equal(t, 1, second.Errored, "g0 is an error row")
	require.Equal(t, 2, second.Unchanged, "g1 and g2")
	require.Zero(t, second.Deleted, "g0 is not deleted")
	require.Equal(t, live, liveIdentifiers(t, b.st, first.SourceID))
	errs, _, err := b.st.RecordErrorList(t.Context(), &store.RecordErrorListParams{JobID: second.JobID})
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Equal(t, "http://grow.test/g0", errs[0].Identifier)
	require.Equal(t, "RecordTooLarge", errs[0].Type)
	require.Contains(t, errs[0].Message, "more than 100000 triples, the record triple cap")
}
