package validate_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

func TestHarvestDuplicatesAndInvalidVA(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()
	name := "dcatus/agency-va-2025-07.data.json"
	h.Corpus.Serve(corpustest.Path(t, name))
	rep := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal})
	pipelinetest.MustComplete(t, rep)
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, 1856, rep.Total)

	// What the job should have found, worked out here from the file itself.
	raw, err := os.ReadFile(corpustest.Path(t, name))
	require.NoError(t, err)
	var cat struct{ Dataset []json.RawMessage }
	require.NoError(t, json.Unmarshal(raw, &cat))
	v, err := dcatus.NewValidator(string(pipelinetest.Federal))
	require.NoError(t, err)
	seen := map[string]bool{}
	duplicates, invalid, valid := 0, map[string]bool{}, map[string]bool{}
	for _, d := range cat.Dataset {
		var r struct{ Identifier string }
		require.NoError(t, json.Unmarshal(d, &r))
		if seen[r.Identifier] {
			duplicates++
			continue
		}
		seen[r.Identifier] = true
		problems, err := v.Validate(d)
		require.NoError(t, err)
		if len(problems) > 0 {
			invalid[r.Identifier] = true
		} else {
			valid[r.Identifier] = true
		}
	}
	require.Equal(t, 21, duplicates)
	require.NotEmpty(t, invalid)
	require.Equal(t, duplicates+len(invalid), rep.Errored)
	require.Equal(t, len(valid), rep.Added)
	require.Equal(t, len(valid), rep.Validated)

	errs, total, err := h.Store.RecordErrorList(ctx, &store.RecordErrorListParams{
		JobID: rep.JobID, PageParams: store.PageParams{Limit: 100_000},
	})
	require.NoError(t, err)
	require.Len(t, errs, total)
	dupRows, invalidWithRows := 0, map[string]bool{}
	for _, e := range errs {
		require.NotEmpty(t, e.Identifier, "every error row names its identifier")
		require.NotEmpty(t, e.Message)
		switch e.Type {
		case "DuplicateIdentifier":
			dupRows++
			require.Contains(t, e.Message, e.Identifier)
		case "ValidationError":
			require.True(t, invalid[e.Identifier], "%q has a validation error but validates", e.Identifier)
			require.NotEmpty(t, e.RecordID, "a validation error points at its harvest_record")
			invalidWithRows[e.Identifier] = true
		default:
			t.Fatalf("unexpected error row %+v", e)
		}
	}
	require.Equal(t, duplicates, dupRows)
	require.Equal(t, invalid, invalidWithRows)

	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	got := map[string]bool{}
	for _, d := range datasets {
		got[d.Identifier] = true
	}
	require.Equal(t, valid, got)
}

func TestHarvestNullsAgainstFederalSchema(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	rep := h.HarvestCorpus(t, "dcatus/city-philadelphia-with-nulls.data.json")
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, 402, rep.Total)
	require.Equal(t, 402, rep.Errored)
	datasets, err := h.Store.DatasetList(context.Background(), &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	require.Empty(t, datasets)
}
