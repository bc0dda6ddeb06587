package dcatap

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// Issue 25 D7: a problem resource's error row stays small whatever the source's terms: a
// blank-node dataset with a 100 KB title in five catalogs with 10 KB IRIs is named by its
// title cut to 256 bytes and three of its catalogs, each cut to 256 bytes.
func TestSplitProblemIsBounded(t *testing.T) {
	g := rdf.NewMemGraph()
	add := func(s, p, o rdf.Term) { require.NoError(t, g.Add(rdf.Triple{S: s, P: p, O: o})) }
	ds := rdf.Blank("ds")
	add(ds, rdfType, typeDataset)
	add(ds, dctTitle, rdf.Literal(strings.Repeat("é", 50_000), "", "en"))
	for i := range 5 {
		c := rdf.IRI(fmt.Sprintf("http://ex.org/%d/%s", i, strings.Repeat("c", 10_000)))
		add(c, rdfType, typeCatalog)
		add(c, dcatDataset, ds)
	}
	byKey, order := splitAll(t, g)
	require.Len(t, order, 6, "five catalogs and the problem")
	var prob *Resource
	for _, r := range byKey {
		if r.Problem != "" {
			prob = r
		}
	}
	require.NotNil(t, prob)
	require.Equal(t, strings.Repeat("é", 128)+"…", prob.Label)
	require.Less(t, len(prob.Problem), 2_000, prob.Problem)
	require.Contains(t, prob.Problem, "and 2 more")
}
