package catalogsync_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/settle"
	"github.com/harvester-dev/harvester/stages/catalogsync"
	"github.com/harvester-dev/harvester/store"
)

// settleFailer is a real store whose OutcomeSettleBatch fails while fail is set.
type settleFailer struct {
	store.Store
	mu   sync.Mutex
	fail bool
}

func (s *settleFailer) OutcomeSettleBatch(ctx context.Context, ps []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error) {
	s.mu.Lock()
	fail := s.fail
	s.mu.Unlock()
	if fail {
		return nil, errors.New("settle refused (test)")
	}
	return s.Store.OutcomeSettleBatch(ctx, ps)
}

// TestSyncSettlesItsRecords: with SetSettled, SYNC settles the outcomes of a batch in the store
// itself (counted once, each key once) and sends the aggregator nothing, but the outcome of one
// record of a job whose expected count the batch reached (the aggregator finishes the job), again
// when the batch is redelivered; a replayed record, and every record of a batch whose settle
// failed, still go to the aggregator.
func TestSyncSettlesItsRecords(t *testing.T) {
	for name, open := range raceStores() {
		t.Run(name, func(t *testing.T) {
			st := &settleFailer{Store: open(t)}
			ctx := t.Context()
			require.NoError(t, st.Migrate(ctx))
			src, job := newSourceJob(t, st)
			h := catalogsync.New(st, nil)
			defer h.Close()
			counted := map[harvest.Outcome]int{}
			h.SetSettled(settle.NewSelf(func(o harvest.Outcome, n int) { counted[o] += n }, nil))

			msgs := make([]*harvest.Message, 9)
			for i := range msgs {
				id := fmt.Sprintf("ds-%d", i)
				body := fmt.Sprintf(`{"identifier": %q, "title": "Water %d"}`, id, i)
				rec := &harvest.Record{JobID: job.ID, SourceID: src.ID, RecordID: harvest.RecordID(job.ID, id),
					JobType: harvest.JobHarvest, Identifier: id, Action: harvest.ActionCreate, Body: harvest.RawText(body),
					Replay: i == 8}
				_, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: rec.RecordID, JobID: job.ID, SourceID: src.ID,
					Identifier: id, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: body})
				require.NoError(t, err)
				m, err := harvest.RecordMessage(harvest.SubjectSync, rec)
				require.NoError(t, err)
				m.SetContext(ctx)
				msgs[i] = m
			}
			// outcomes handles a batch and returns the identifiers of the outcomes it sent on.
			outcomes := func(batch []*harvest.Message) []string {
				var ids []string
				for i, r := range h.HandleBatch(ctx, batch) {
					require.NoError(t, r.Err, "record %d", i)
					for _, m := range r.Out {
						var s harvest.Settled
						require.NoError(t, harvest.Decode(m, &s))
						require.Equal(t, harvest.OutcomeAdded, s.Outcome)
						require.Equal(t, harvest.RecordSuccess, s.Status)
						ids = append(ids, s.Identifier)
					}
				}
				return ids
			}
			settled := func() *store.HarvestJob {
				j, err := st.JobGet(ctx, job.ID)
				require.NoError(t, err)
				return j
			}

			require.Empty(t, outcomes(msgs[:3]), "settled in the store, not sent")
			require.Equal(t, 3, settled().Settled)
			require.Equal(t, 3, settled().Added)
			require.Equal(t, map[harvest.Outcome]int{harvest.OutcomeAdded: 3}, counted)

			_, err := st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 6})
			require.NoError(t, err)
			require.Equal(t, []string{"ds-5"}, outcomes(msgs[3:6]), "the batch that reached the count tells the aggregator")
			require.Equal(t, 6, settled().Settled)
			require.Equal(t, []string{"ds-5"}, outcomes(msgs[3:6]), "a redelivered batch tells it again")
			require.Equal(t, 6, settled().Settled, "a key counts once")
			require.Equal(t, map[harvest.Outcome]int{harvest.OutcomeAdded: 6}, counted, "counted once")

			st.mu.Lock()
			st.fail = true
			st.mu.Unlock()
			require.Equal(t, []string{"ds-6", "ds-7", "ds-8"}, outcomes(msgs[6:9]), "the settle failed: the aggregator settles them")
			st.mu.Lock()
			st.fail = false
			st.mu.Unlock()
			require.Equal(t, []string{"ds-8"}, outcomes(msgs[8:9]), "a replayed record goes to the aggregator")
			require.Equal(t, 6, settled().Settled)
		})
	}
}
