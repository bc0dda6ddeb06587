package pipeline_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/store"
)

// TestUnchangedRecordsSettleInExtract: a data.json's listing does COMPARE's work for a harvest
// or force_harvest job (its claimed batches decided by package change): an unchanged record
// settles in EXTRACT and crosses no JetStream hop, a new or changed one goes from EXTRACT
// straight to VALIDATE, and COMPARE is handed none. The example catalog (32 valid records, 3
// invalid, a repeated identifier) is harvested, one record's title changed, harvested again,
// again unchanged, then force-harvested: counts exact, VALIDATE handed only the new and changed
// records, the aggregator's outcome metric counting the outcomes EXTRACT settled, the 3 invalid
// records' error rows carried from the first job, the repeat found again each time. SYNC
// settles the records it adds and updates itself: the aggregator hears of the errored ones,
// the expected count and at most the one batch that reached it. A validate job still goes
// through COMPARE. On both backends.
func TestUnchangedRecordsSettleInExtract(t *testing.T) {
	t.Parallel()
	for name, open := range pipeline.Backends() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setupOn(t, open(t), func(s store.Store) store.Store { return s })
			raw, err := os.ReadFile("../examples/agency-sample.data.json")
			require.NoError(t, err)
			var doc map[string]any
			require.NoError(t, json.Unmarshal(raw, &doc))
			file := filepath.Join(t.TempDir(), "data.json")
			require.NoError(t, os.WriteFile(file, raw, 0o600))
			received := func(stage string) float64 {
				return labelledValue(t, b.reg, "harvester_stage_messages_received_total", "stage", stage)
			}

			first := b.harvestURL(t, file, harvest.JobHarvest)
			require.Equal(t, [5]int{32, 0, 0, 0, 4}, counts(first))
			require.Equal(t, 35.0, received("validate"), "every keyed record is new")
			require.Zero(t, received("compare"), "EXTRACT decided them all")
			// The aggregator heard of the 4 errored (3 invalid, 1 repeated identifier), the expected
			// count and at most one batch that reached it: SYNC settled the 32 added itself.
			require.LessOrEqual(t, received("report"), 6.0, "SYNC settled its records")
			require.Equal(t, 32.0, counterValue(t, b.reg, "harvester_records_settled_total", "added"))

			datasets := doc["dataset"].([]any)
			changed := datasets[0].(map[string]any)
			changed["title"] = changed["title"].(string) + " (revised)"
			edited, err := json.Marshal(doc)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(file, edited, 0o600))
			second := b.harvestURL(t, file, harvest.JobHarvest)
			require.Equal(t, [5]int{0, 1, 0, 31, 4}, counts(second))
			require.Equal(t, 36.0, received("validate"), "only the changed record is validated")
			require.Zero(t, received("compare"))
			require.Equal(t, 31.0, counterValue(t, b.reg, "harvester_records_settled_total", "unchanged"))
			require.Equal(t, 8.0, counterValue(t, b.reg, "harvester_records_settled_total", "errored"))

			errs, total, err := b.st.RecordErrorList(context.Background(), &store.RecordErrorListParams{JobID: second.ID,
				PageParams: store.PageParams{Limit: 100}})
			require.NoError(t, err)
			require.Equal(t, 4, total)
			carried := 0
			for _, e := range errs {
				switch e.Type {
				case harvest.TypeValidationError:
					require.Equal(t, first.ID, e.CarriedFromJobID, "%s: carried from the job that found it", e.Identifier)
					carried++
				case harvest.TypeDuplicateIdentifier:
					require.Empty(t, e.CarriedFromJobID, "the repeat is found again")
				default:
					t.Errorf("unexpected error row %s %q", e.Type, e.Message)
				}
			}
			require.Equal(t, 3, carried)

			third := b.harvestURL(t, file, harvest.JobHarvest)
			require.Equal(t, [5]int{0, 0, 0, 32, 4}, counts(third))
			require.Equal(t, 36.0, received("validate"), "nothing changed: nothing validated")

			force := b.harvestURL(t, file, harvest.JobForceHarvest)
			require.Equal(t, [5]int{0, 32, 0, 0, 4}, counts(force))
			require.Equal(t, 71.0, received("validate"), "a force harvest validates every record")
			require.Equal(t, 33.0, counterValue(t, b.reg, "harvester_records_settled_total", "updated"))
			require.Zero(t, received("compare"))

			b.harvestURL(t, file, harvest.JobValidate)
			require.Equal(t, 35.0, received("compare"), "a validate job's records go through COMPARE")
		})
	}
}

// counts are a job's five outcome counts: added, updated, deleted, unchanged, errored.
func counts(j *store.HarvestJob) [5]int {
	return [5]int{j.Added, j.Updated, j.Deleted, j.Unchanged, j.Errored}
}
