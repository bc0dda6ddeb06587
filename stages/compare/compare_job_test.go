package compare_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// A record that failed the federal schema is checked again when the source moves to the
// non-federal schema, although its content did not change; and it is then added, not updated,
// because it never was in the catalog. The record that passed is checked again too, and, still
// valid, is unchanged (its dataset is not rewritten). Moving back to the federal schema fails
// the record without codes again (its live dataset is kept).
func TestSchemaChangeRevalidatesUnchangedRecords(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	catalog := filepath.Join(t.TempDir(), "data.json")
	record := `{"identifier":"%s","title":"T","description":"D","keyword":["k"],"modified":"2025-01-01",
		"publisher":{"name":"P"},"contactPoint":{"fn":"F","hasEmail":"mailto:f@example.gov"},"accessLevel":"public"%s}`
	doc := `{"dataset":[` + fmt.Sprintf(record, "federal", `,"bureauCode":["015:11"],"programCode":["015:001"]`) + `,` +
		fmt.Sprintf(record, "no-codes", "") + `]}`
	require.NoError(t, os.WriteFile(catalog, []byte(doc), 0o644))

	src := pipelinetest.Source{URL: catalog, SchemaType: pipelinetest.Federal}
	first := h.Harvest(t, src)
	pipelinetest.MustComplete(t, first)
	require.Equal(t, [2]int{1, 1}, [2]int{first.Added, first.Errored})

	src.SchemaType = pipelinetest.NonFederal
	second := h.Harvest(t, src)
	pipelinetest.MustComplete(t, second)
	require.Equal(t, 1, second.Added, "the record that only failed the federal schema is added now")
	require.Equal(t, 1, second.Unchanged, "the valid record, validated again")
	require.Equal(t, 2, second.Validated, "both records were validated")
	require.Zero(t, second.Errored)
	datasets, err := h.Store.DatasetList(context.Background(), &store.DatasetListParams{SourceID: second.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 2)

	src.JobType = harvest.JobForceHarvest
	third := h.Harvest(t, src)
	pipelinetest.MustComplete(t, third)
	require.Equal(t, [2]int{0, 2}, [2]int{third.Added, third.Updated}, "both are in the catalog: updates")

	src.SchemaType, src.JobType = pipelinetest.Federal, harvest.JobValidate
	val := h.Harvest(t, src)
	pipelinetest.MustComplete(t, val)
	require.Equal(t, [3]int{0, 1, 1}, [3]int{val.Updated, val.Unchanged, val.Errored}, "a validate job says what a harvest will")

	src.JobType = harvest.JobHarvest
	fourth := h.Harvest(t, src)
	pipelinetest.MustComplete(t, fourth)
	require.Equal(t, [3]int{0, 1, 1}, [3]int{fourth.Updated, fourth.Unchanged, fourth.Errored},
		"stricter again: the record without codes fails, the other is unchanged")
	datasets, err = h.Store.DatasetList(context.Background(), &store.DatasetListParams{SourceID: fourth.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 2, "an invalid record deletes nothing")
}

// A validate job says what a harvest would do, deletes included, and changes nothing.
func TestValidateJobCountsDeletes(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	h.HarvestCorpus(t, "dcatus/agency-gsa-2025-07.data.json")
	h.Corpus.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	val := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal, JobType: harvest.JobValidate})
	pipelinetest.MustComplete(t, val)
	require.Equal(t, [5]int{0, 99, 4, 240, 0}, [5]int{val.Added, val.Updated, val.Deleted, val.Unchanged, val.Errored})
	datasets, err := h.Store.DatasetList(context.Background(), &store.DatasetListParams{SourceID: val.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 343, "validate deleted nothing")
}

// An agency server that suddenly serves an empty (or mostly empty) catalog does not empty the
// catalog: the harvest fails and deletes nothing (DESIGN rule 1). force_harvest may.
func TestHarvestRefusesToDeleteMostOfASource(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()
	first := h.HarvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	require.Equal(t, 339, first.Added)

	empty := filepath.Join(t.TempDir(), "empty.json")
	require.NoError(t, os.WriteFile(empty, []byte(`{"dataset":[]}`), 0o644))
	h.Corpus.Serve(empty)
	src := pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal}
	rep := h.Harvest(t, src)
	require.Equal(t, "error", rep.Status)
	require.Len(t, rep.JobErrors, 1)
	require.Contains(t, rep.JobErrors[0], "DeleteGuard: the listing would delete 339 of the source's 339 live datasets")
	require.Zero(t, rep.Deleted)
	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: first.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 339, "nothing was deleted")

	src.JobType = harvest.JobForceHarvest
	forced := h.Harvest(t, src)
	pipelinetest.MustComplete(t, forced)
	require.Equal(t, 339, forced.Deleted, "a force_harvest is not bound")
}
