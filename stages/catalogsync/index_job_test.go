package catalogsync_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/search/searchtest"
	"github.com/harvester-dev/harvester/store"
)

// TestIndexFailureIsAnErrorOutcome: when OpenSearch refuses every write (a write block on the
// index), each record settles as an error naming the index's reason, never as a success; once
// the block is lifted, the next harvest indexes them all.
func TestIndexFailureIsAnErrorOutcome(t *testing.T) {
	t.Parallel()
	url := searchtest.OpenSearchURL(t)
	alias := "synctest-" + strings.ReplaceAll(uuid.NewString(), "-", "")
	idx, err := opensearch.Open(context.Background(), url, alias)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, idx.Drop(context.Background())) })
	h := pipelinetest.New(t)
	h.Config.OpenSearchURL, h.Config.SearchIndex = url, alias
	setBlock := func(on bool) {
		require.NoError(t, idx.SetWriteBlock(t.Context(), on))
	}
	setBlock(true)
	file := corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json")
	h.Corpus.Serve(file)
	src := pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal}
	first := h.Harvest(t, src)
	pipelinetest.MustComplete(t, first)
	total := len(pipelinetest.CatalogRecords(t, "dcatus/agency-gsa-2025-07.data.json"))
	require.Equal(t, total, first.Errored, "every record's indexing failed")
	require.Zero(t, first.Added)
	errs, _, err := h.Store.RecordErrorList(t.Context(), &store.RecordErrorListParams{JobID: first.JobID, PageParams: store.PageParams{Limit: 1}})
	require.NoError(t, err)
	require.NotEmpty(t, errs)
	require.Equal(t, 1, strings.Count(errs[0].Message, "search index:"), errs[0].Message)
	require.Contains(t, errs[0].Message, "cluster_block_exception")

	setBlock(false)
	second := h.Harvest(t, src)
	pipelinetest.MustComplete(t, second)
	require.Equal(t, total, second.Added+second.Updated, "errored records are harvested again")
	require.Zero(t, second.Errored)
	ds, err := h.Store.DatasetList(t.Context(), &store.DatasetListParams{SourceID: second.SourceID})
	require.NoError(t, err)
	live := map[string]bool{}
	for _, d := range ds {
		live[d.ID] = true
	}
	require.NoError(t, idx.Refresh(t.Context()))
	indexed := map[string]bool{}
	require.NoError(t, idx.Scan(t.Context(), second.SourceID, func(e search.Entry) error {
		indexed[e.ID] = true
		return nil
	}))
	require.Equal(t, live, indexed)
}
