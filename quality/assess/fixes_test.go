package assess_test

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/store"
)

// TestSourceFixes: the fixes of a source name, per indicator its datasets that miss it, the
// points they would gain (a dataset indicator's whole points each, a distribution indicator's
// missed share), the datasets that gain most first, limited to the examples asked; ranked by
// the total gain; the quality is SourceQuality's.
func TestSourceFixes(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		src, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "F", URL: "https://example.gov/" + uuid.NewString(),
			SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		add := func(slug string, doc map[string]any) {
			body, err := json.Marshal(doc)
			require.NoError(t, err)
			r, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
				Identifier: slug, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: "{}", SchemaType: harvest.SchemaDCATUS11Federal})
			require.NoError(t, err)
			_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: slug, Slug: slug, DCAT: body, RecordID: r.ID})
			require.NoError(t, err)
		}
		csv := map[string]any{"accessURL": "https://x.example.gov/a.csv", "format": "CSV"}
		bare := map[string]any{"accessURL": "https://x.example.gov/b"}
		add("a-keyword", map[string]any{"title": "Kept", "keyword": []string{"k"}, "distribution": []any{csv}})
		add("b-none", map[string]any{"title": "Bare", "distribution": []any{csv, bare}})
		add("c-none", map[string]any{"title": "Bare too", "distribution": []any{bare}})

		got, err := assess.SourceFixes(ctx, st, src.ID, 1)
		require.NoError(t, err)
		want, err := assess.SourceQuality(ctx, st, src.ID)
		require.NoError(t, err)
		require.Equal(t, want, got.Source)
		byMetric := map[quality.Metric]*assess.Fix{}
		for i, f := range got.Fixes {
			byMetric[f.Metric] = f
			if i > 0 {
				require.GreaterOrEqual(t, got.Fixes[i-1].Gain, f.Gain, "ranked by gain")
			}
			require.Positive(t, f.Gain)
		}
		kw := byMetric[quality.KeywordAvailability]
		require.NotNil(t, kw)
		require.True(t, kw.PerDataset)
		require.Equal(t, 2, kw.Datasets)
		require.InDelta(t, 60, kw.Gain, 1e-9)
		require.Equal(t, []assess.FixDataset{{ID: kw.Examples[0].ID, Slug: "b-none", Title: "Bare", Gain: 30}}, kw.Examples,
			"one example asked: the first by slug of equal gains")
		format := byMetric[quality.FormatAvailability]
		require.False(t, format.PerDataset)
		require.Equal(t, 2, format.Datasets)
		require.InDelta(t, 10+20, format.Gain, 1e-9, "half of b's distributions, all of c's")
		require.Equal(t, "c-none", format.Examples[0].Slug, "the larger gain first")
		require.InDelta(t, 20, format.Examples[0].Gain, 1e-9)
		require.InDelta(t, 20-want.Indicators[7].Mean, format.Lost, 1e-9)
		access := byMetric[quality.AccessURLStatusCode]
		require.Equal(t, 3, access.Datasets)
		require.Equal(t, 3, access.Unchecked, "no link was checked")
		require.Zero(t, format.Unchecked)
	})
}
