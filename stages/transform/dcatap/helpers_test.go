package dcatap

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

type rdfTerm = rdf.Term

var rdfIRI = rdf.IRI

func parseGraph(t testing.TB, nq string) *graph {
	t.Helper()
	g := rdf.NewMemGraph()
	require.NoError(t, rdf.Parse(strings.NewReader(nq), rdf.NQuads, "", g.Add))
	return &graph{g: g, langs: DefaultLanguages}
}
