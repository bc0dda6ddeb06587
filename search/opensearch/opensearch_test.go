package opensearch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/search/searchtest"
)

func open(t *testing.T) *opensearch.Index {
	alias := "test-" + strings.ReplaceAll(uuid.NewString(), "-", "")
	idx, err := opensearch.Open(t.Context(), searchtest.OpenSearchURL(t), alias)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, idx.Drop(context.Background())) })
	return idx
}

func TestConformance(t *testing.T) {
	searchtest.Run(t, func(t *testing.T) search.Index { return open(t) })
}

// TestOpenKeepsIndex: opening an existing alias again reuses its index and documents.
func TestOpenKeepsIndex(t *testing.T) {
	a := open(t)
	doc := search.Document{ID: "d1", Title: "Kept", Identifier: "x", SourceID: "s"}
	errs, err := a.Apply(t.Context(), []search.Op{{ID: "d1", Doc: &doc}})
	require.NoError(t, err)
	require.NoError(t, errs[0])
	b, err := opensearch.Open(t.Context(), searchtest.OpenSearchURL(t), a.Alias())
	require.NoError(t, err)
	require.NoError(t, b.Refresh(t.Context()))
	res, err := b.Search(t.Context(), search.Query{Text: "kept"})
	require.NoError(t, err)
	require.Equal(t, 1, res.Total)
}

// TestUnreachable: a node that does not answer is a clear error, not a hang.
func TestUnreachable(t *testing.T) {
	_, err := opensearch.Open(t.Context(), "http://127.0.0.1:1", "x")
	require.ErrorContains(t, err, "opensearch at http://127.0.0.1:1")
}
