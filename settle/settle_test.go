package settle_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/settle"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// refusing is a store whose settle statement fails.
type refusing struct{ store.Store }

func (refusing) OutcomeSettleBatch(context.Context, []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error) {
	return nil, errors.New("refused (test)")
}

// TestBatch: outcomes settled in one statement are counted once, new ones told to counted; the
// last outcome of a job whose batch reached its expected count is Finish (again when the batch
// comes twice), an outcome of a job the store does not have is Failed alone, and every outcome
// of a statement that failed is Failed. On both backends.
func TestBatch(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) store.Store{
		"sqlite": func(t *testing.T) store.Store {
			st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "h.db"))
			require.NoError(t, err)
			t.Cleanup(st.Close)
			return st
		},
		"postgres": func(t *testing.T) store.Store { return dbtest.Store(t) },
	} {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			ctx := t.Context()
			require.NoError(t, st.Migrate(ctx))
			src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: "https://example.gov/data.json",
				SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
			require.NoError(t, err)
			job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
			require.NoError(t, err)
			ss := make([]*harvest.Settled, 4)
			for i := range ss {
				id := fmt.Sprintf("ds-%d", i)
				rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: harvest.RecordID(job.ID, id), JobID: job.ID,
					SourceID: src.ID, Identifier: id, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: "{}"})
				require.NoError(t, err)
				s := harvest.SettleIdentifier(job.ID, id, harvest.OutcomeAdded)
				s.RecordID, s.Status = rec.ID, harvest.RecordSuccess
				ss[i] = s
			}
			counted := map[harvest.Outcome]int{}
			count := func(o harvest.Outcome, n int) { counted[o] += n }

			res, err := settle.Batch(ctx, st, ss[:2], count)
			require.NoError(t, err)
			require.Equal(t, []settle.Result{settle.Settled, settle.Settled}, res, "no expected count yet")
			require.Equal(t, map[harvest.Outcome]int{harvest.OutcomeAdded: 2}, counted)

			_, err = st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 4})
			require.NoError(t, err)
			unknown := harvest.SettleIdentifier(uuid.NewString(), "x", harvest.OutcomeUnchanged)
			batch := []*harvest.Settled{ss[2], unknown, ss[3]}
			for range 2 { // a redelivered batch says the same, and counts nothing again
				res, err = settle.Batch(ctx, st, batch, count)
				require.NoError(t, err)
				require.Equal(t, []settle.Result{settle.Settled, settle.Failed, settle.Finish}, res)
				require.Equal(t, map[harvest.Outcome]int{harvest.OutcomeAdded: 4}, counted)
			}
			j, err := st.JobGet(ctx, job.ID)
			require.NoError(t, err)
			require.Equal(t, 4, j.Settled)
			require.Equal(t, harvest.JobInProgress, j.Status, "the aggregator finishes it")

			res, err = settle.Batch(ctx, refusing{st}, ss, count)
			require.Error(t, err)
			require.Equal(t, []settle.Result{settle.Failed, settle.Failed, settle.Failed, settle.Failed}, res)
			res, err = settle.Batch(ctx, st, nil, count)
			require.NoError(t, err)
			require.Empty(t, res)
		})
	}
}
