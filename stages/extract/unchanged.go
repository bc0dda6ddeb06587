package extract

import (
	"context"

	"github.com/harvester-dev/harvester/change"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// settleUnchanged is the unchanged path of a claimed listing (NewClaimedRun: a DCAT-US
// document's): once a batch of its entries is claimed, a harvest job looks their records up
// in one query (store.Store.RecordCompareBatch, what COMPARE reads), hashes those that may be
// unchanged (change.MayBeUnchanged), and settles each that change.Unchanged finds unchanged in
// one statement (store.Store.OutcomeSettleBatch, the aggregator's: the same outcome, its
// carried error and warning rows, the key counted once) instead of sending it to COMPARE and
// its outcome on to the aggregator: an unchanged record crosses no JetStream hop. It returns
// which entries of batch it settled (nil: none). Any failure settles none of the batch's
// records here, nor the one whose outcome the store refused: they go to COMPARE as any other,
// which decides them by the same rule (package change). The aggregator still finishes the
// job: the listing's end (Complete) waits for these settles, so they are counted before
// COMPARE sends the job's expected count.
func (l *Run) settleUnchanged(ctx context.Context, batch []claim, repeats map[string]int) []bool {
	job := l.job
	if job.JobType != harvest.JobHarvest {
		return nil
	}
	var keys []store.RecordCompareKey
	var at []int // the entry of batch each key is of
	for i, c := range batch {
		if first, repeat := repeats[c.identifier]; c.msg == nil || repeat && first != c.pos {
			continue
		}
		keys = append(keys, store.RecordCompareKey{SourceID: job.SourceID, Identifier: c.identifier,
			RecordID: c.msg.Metadata.Get(harvest.MetaRecordID)})
		at = append(at, i)
	}
	if len(keys) == 0 {
		return nil
	}
	known, err := l.h.store.RecordCompareBatch(ctx, keys)
	if err != nil || len(known) != len(keys) {
		return nil
	}
	outcomes := make([]*harvest.Settled, len(keys))
	harvest.ForEach(len(keys), func(j int) {
		if !change.MayBeUnchanged(job.JobType, job.JobID, known[j]) {
			return
		}
		var rec harvest.Record
		if harvest.Decode(batch[at[j]].msg, &rec) != nil {
			return
		}
		if s, ok := change.Unchanged(&rec, known[j]); ok {
			outcomes[j] = s
		}
	})
	var ps []*store.OutcomeSettleParams
	var of []int // the entry of batch each outcome is of
	for j, s := range outcomes {
		if s != nil {
			ps, of = append(ps, store.SettledOutcome(s)), append(of, at[j])
		}
	}
	if len(ps) == 0 {
		return nil
	}
	res, err := l.h.store.OutcomeSettleBatch(ctx, ps)
	if err != nil || len(res) != len(ps) {
		return nil
	}
	settled := make([]bool, len(batch))
	fresh := map[harvest.Outcome]int{}
	for k, r := range res {
		if r.Err != nil {
			continue
		}
		settled[of[k]] = true
		if r.Fresh {
			fresh[ps[k].Outcome]++
		}
	}
	if l.h.cfg.Settled != nil {
		for outcome, n := range fresh {
			l.h.cfg.Settled(outcome, n)
		}
	}
	return settled
}
