package bleve_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/bleve"
	"github.com/harvester-dev/harvester/search/searchtest"
)

func TestConformance(t *testing.T) {
	searchtest.Run(t, func(t *testing.T) search.Index {
		idx, err := bleve.Open(t.TempDir())
		require.NoError(t, err)
		t.Cleanup(func() { idx.Close() })
		return idx
	})
}

// TestOpenTwiceShares: a second Open of one directory in a process shares the index (bleve
// locks the directory), and the index stays open until its last handle closes.
func TestOpenTwiceShares(t *testing.T) {
	dir := t.TempDir()
	a, err := bleve.Open(dir)
	require.NoError(t, err)
	b, err := bleve.Open(dir)
	require.NoError(t, err)
	doc := search.Document{ID: "d1", Title: "Shared", Identifier: "x", SourceID: "s"}
	_, err = a.Apply(t.Context(), []search.Op{{ID: "d1", Doc: &doc}})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	res, err := b.Search(t.Context(), search.Query{Text: "shared"})
	require.NoError(t, err)
	require.Equal(t, 1, res.Total)
	require.NoError(t, b.Close())

	c, err := bleve.Open(dir)
	require.NoError(t, err, "reopened after the last handle closed")
	res, err = c.Search(t.Context(), search.Query{Text: "shared"})
	require.NoError(t, err)
	require.Equal(t, 1, res.Total, "documents persist on disk")
	require.NoError(t, c.Close())
}

// TestMappingCoversDocument: every search.Document field has a property in the mapping and
// every property is a Document field; bleve's static mapping silently drops a field it lacks.
func TestMappingCoversDocument(t *testing.T) {
	searchtest.RequireMapsDocument(t, bleve.Properties())
}

// TestErrorsNameTheEngine: an operation's error says "bleve:", as OpenSearch's say
// "opensearch:"; SYNC adds "search index:" once (its StageError rows said "search index: search
// index: …", issue 34 item 17).
func TestErrorsNameTheEngine(t *testing.T) {
	idx, err := bleve.Open(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, idx.Close())
	doc := search.Document{ID: "d1", Title: "Closed", Identifier: "x", SourceID: "s"}
	_, err = idx.Apply(t.Context(), []search.Op{{ID: "d1", Doc: &doc}})
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "bleve: "), err.Error())
	require.NotContains(t, err.Error(), "search index")
	_, err = idx.Search(t.Context(), search.Query{Text: "closed"})
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "bleve: "), err.Error())
}

// TestConformanceUninvertedFacets runs the conformance suite with every search's facets counted from
// the uninverted facet fields, as searches with many hits count them.
func TestConformanceUninvertedFacets(t *testing.T) {
	t.Cleanup(bleve.SetUninvertMinHits(0)) // after the suite's parallel subtests
	TestConformance(t)
}
