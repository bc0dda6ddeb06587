package compare_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// Whole harvest jobs of GSA's catalog: what COMPARE decides (added, updated, deleted,
// unchanged) for each job type, and the records and datasets SYNC writes for it.

func TestHarvestIncrementalGSA(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()

	first := h.HarvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	require.Equal(t, "complete", first.Status)
	require.Equal(t, 339, first.Added)

	second := h.HarvestCorpus(t, "dcatus/agency-gsa-2025-07.data.json")
	require.Equal(t, "complete", second.Status)
	require.Equal(t, [5]int{4, 99, 0, 240, 0},
		[5]int{second.Added, second.Updated, second.Deleted, second.Unchanged, second.Errored})
	require.Equal(t, 343, second.Total)

	july := pipelinetest.CatalogRecords(t, "dcatus/agency-gsa-2025-07.data.json")
	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: second.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, len(july))
	for _, d := range datasets {
		want, ok := july[d.Identifier]
		require.True(t, ok, "dataset %q is not in the July file", d.Identifier)
		require.JSONEq(t, string(want), string(d.DCAT), d.Identifier)
		rec, err := h.Store.RecordGet(ctx, d.RecordID)
		require.NoError(t, err)
		if rec.JobID == second.JobID {
			require.Equal(t, string(want), rec.SourceRaw, "source_raw keeps the record as written")
		} else {
			require.JSONEq(t, string(want), rec.SourceRaw, "an unchanged record keeps its row")
		}
	}

	rows, err := h.Store.RecordCount(ctx, second.SourceID)
	require.NoError(t, err)
	third := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal})
	pipelinetest.MustComplete(t, third)
	require.Equal(t, 343, third.Unchanged)
	require.Equal(t, 343, third.Total)
	after, err := h.Store.RecordCount(ctx, third.SourceID)
	require.NoError(t, err)
	require.Equal(t, rows, after, "an unchanged run writes no harvest_record rows")
}

func TestHarvestDeletesWhatTheSourceDropped(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()
	h.HarvestCorpus(t, "dcatus/agency-gsa-2025-07.data.json")
	rep := h.HarvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	require.Equal(t, [5]int{0, 99, 4, 240, 0}, [5]int{rep.Added, rep.Updated, rep.Deleted, rep.Unchanged, rep.Errored})
	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 339)
}

func TestHarvestJobTypes(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()
	h.Corpus.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))

	val := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal, JobType: harvest.JobValidate})
	pipelinetest.MustComplete(t, val)
	require.Equal(t, "complete", val.Status)
	require.Equal(t, 339, val.Validated)
	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: val.SourceID})
	require.NoError(t, err)
	require.Empty(t, datasets, "validate writes no dataset")
	rows, err := h.Store.RecordCount(ctx, val.SourceID)
	require.NoError(t, err)
	require.Zero(t, rows, "validate leaves no history that a later harvest would compare against")

	harvested := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal})
	pipelinetest.MustComplete(t, harvested)
	require.Equal(t, 339, harvested.Added)

	force := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal, JobType: harvest.JobForceHarvest})
	pipelinetest.MustComplete(t, force)
	require.Equal(t, 339, force.Updated)
	require.Equal(t, 339, force.Total)

	rows, err = h.Store.RecordCount(ctx, harvested.SourceID)
	require.NoError(t, err)
	clear := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal, JobType: harvest.JobClear})
	pipelinetest.MustComplete(t, clear)
	require.Equal(t, "complete", clear.Status)
	require.Equal(t, 339, clear.Deleted)
	require.Equal(t, 339, clear.Total)
	datasets, err = h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: harvested.SourceID})
	require.NoError(t, err)
	require.Empty(t, datasets, "clear deletes every dataset")
	after, err := h.Store.RecordCount(ctx, harvested.SourceID)
	require.NoError(t, err)
	require.Equal(t, rows+339, after, "clear keeps the history and adds a delete record per dataset")

	again := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal})
	pipelinetest.MustComplete(t, again)
	require.Equal(t, 339, again.Added, "after a clear every record is new again")
}
