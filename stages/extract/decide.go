package extract

import (
	"context"

	"github.com/harvester-dev/harvester/change"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/settle"
	"github.com/harvester-dev/harvester/store"
)

// decided is what decideClaimed made of one claimed entry: settled (its record settled
// unchanged in the store), or next, the record message to publish in place of the entry's own
// (to its next stage past COMPARE), or neither (the entry's record goes to COMPARE).
type decided struct {
	settled bool
	next    *harvest.Message
}

// decision is one looked-up record's decision before it is stored: its unchanged outcome, or
// the harvest_record to insert and the message that follows the insert.
type decision struct {
	outcome *harvest.Settled
	insert  *store.RecordInsertParams
	next    *harvest.Message
}

// decideClaimed is COMPARE's work done in a claimed listing (NewClaimedRun: a DCAT-US
// document's) for a harvest or force_harvest job, so that its records skip a JetStream hop:
// once a batch of entries is claimed, their records are looked up in one query
// (store.Store.RecordCompareBatch, what COMPARE reads), hashed and decided by COMPARE's rule
// (package change, in parallel); the unchanged settle in one statement (OutcomeSettleBatch,
// the aggregator's: the same outcome and carried rows, the key counted once, counted in
// Config.Settled) and never cross JetStream; the new and changed get their harvest_record in one
// statement (RecordInsertBatch, as COMPARE writes it) and go straight to TRANSFORM or VALIDATE
// (change.Onward) with COMPARE's fields set. It returns what became of each entry of batch (nil:
// nothing, all go to COMPARE). What it cannot do goes to COMPARE as before, which decides by the
// same rule: a record this job decided before (a re-driven job: the first decision stands), one
// whose hash fails (COMPARE settles its error), a statement that fails (each record is then
// retried alone there). The aggregator still finishes the job: the listing's end (Complete)
// waits for these writes, so they are in before COMPARE sends the job's expected count.
func (l *Run) decideClaimed(ctx context.Context, batch []claim, repeats map[string]int) []decided {
	job := l.job
	if job.JobType != harvest.JobHarvest && job.JobType != harvest.JobForceHarvest {
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
	ds := make([]decision, len(keys))
	harvest.ForEach(len(keys), func(j int) { ds[j] = decide(batch[at[j]].msg, known[j]) })
	out := make([]decided, len(batch))
	l.settleUnchanged(ctx, ds, at, out)
	l.insertChanged(ctx, ds, at, out)
	return out
}

// decide decides the record of msg, which the store answered known for (see decideClaimed);
// the zero decision leaves it to COMPARE.
func decide(msg *harvest.Message, known *store.RecordCompare) decision {
	var rec harvest.Record
	if known.Stored != nil || harvest.Decode(msg, &rec) != nil || rec.NotDownloaded || rec.Replay {
		return decision{}
	}
	hash, err := change.RecordHash(&rec)
	if err != nil {
		return decision{}
	}
	action, revalidate, rejudge := change.Decide(&rec, hash, known)
	if action == harvest.ActionUnchanged {
		return decision{outcome: change.UnchangedOutcome(&rec, known.Latest)}
	}
	rec.Action, rec.SourceHash, rec.Revalidate, rec.Rejudge = action, hash, revalidate, rejudge
	next, err := harvest.RecordMessage(change.Onward(&rec), &rec)
	if err != nil {
		return decision{}
	}
	return decision{next: next, insert: change.RecordRow(&rec)}
}

// settleUnchanged settles the unchanged decisions of ds (of the entries at) in one statement
// (settle.Batch) and marks the entries it settled in out; an outcome the store refused goes to
// COMPARE. A batch that reached the job's expected count (a Finish) needs no message: the
// listing's expected count, sent after its claims, finishes the job.
func (l *Run) settleUnchanged(ctx context.Context, ds []decision, at []int, out []decided) {
	var ss []*harvest.Settled
	var of []int // the entry each outcome is of
	for j, d := range ds {
		if d.outcome != nil {
			ss, of = append(ss, d.outcome), append(of, at[j])
		}
	}
	if len(ss) == 0 {
		return
	}
	res, err := settle.Batch(ctx, l.h.store, ss, l.h.cfg.Settled)
	if err != nil {
		return
	}
	for k, r := range res {
		out[of[k]].settled = r != settle.Failed
	}
}

// insertChanged writes the harvest_records of the changed decisions of ds (of the entries at)
// in one statement and, when it succeeds, gives each of those entries its next message in out.
// When it fails, none is written, and they go to COMPARE (a job ended since: COMPARE drops
// them; another error: COMPARE retries each alone).
func (l *Run) insertChanged(ctx context.Context, ds []decision, at []int, out []decided) {
	var ps []*store.RecordInsertParams
	var of []int
	for j, d := range ds {
		if d.insert != nil {
			ps, of = append(ps, d.insert), append(of, j)
		}
	}
	if len(ps) == 0 {
		return
	}
	if l.h.store.RecordInsertBatch(ctx, ps) != nil {
		return
	}
	for _, j := range of {
		out[at[j]].next = ds[j].next
	}
}
