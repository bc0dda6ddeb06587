// Package settle is a stage settling its records' outcomes in the store itself: the job
// aggregator's statement (store.Store.OutcomeSettleBatch: counts, the record's final status,
// its error rows and source_transform, each key of a job once) run by the stage for a whole
// batch, so that those records send the aggregator (stages/report) no message. EXTRACT settles
// so a data.json listing's unchanged records, COMPARE the unchanged records of the other
// families, SYNC the records it writes.
//
// The aggregator still finishes every job: Batch says which outcome must still go to it
// (Finish: its batch reached the job's expected count, store.HarvestJob.MayFinish; Failed: it
// was not settled). The settle batches of a job commit one at a time (each locks the job's
// row), so whichever comes last, a stage's batch, the aggregator's, or the expected count the
// aggregator sets, sees the count reached.
package settle

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Store is what Batch needs of the store (store.Store has it).
type Store interface {
	OutcomeSettleBatch(ctx context.Context, ps []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error)
}

// store.Store satisfies Store.
var _ Store = store.Store(nil)

// Result is what became of one outcome given to Batch.
type Result int

const (
	// Settled: counted in the store (or counted before: a redelivery); nothing to send.
	Settled Result = iota
	// Finish: settled, and the statement's job row says the job may finish
	// (store.HarvestJob.MayFinish): the outcome goes to the aggregator, which settles it again
	// (a key counts once) and finishes and reports the job. One outcome of each such job in a
	// batch, its last.
	Finish
	// Failed: not settled (the statement failed, or refused this outcome: an unknown job, say):
	// the outcome goes to the aggregator, which settles it or says why not.
	Failed
)

// Batch settles outcomes ss (records of jobs in progress; a replayed record's outcome goes to
// the aggregator, whose report of a finished job it changes) in one statement and returns one
// Result for each, in ss's order. counted, when not nil, is told how many new outcomes of each
// kind the statement settled (report.Handler.Counted: harvester_records_settled_total). err is
// the statement's error, or a short answer; every result is Failed then.
func Batch(ctx context.Context, st Store, ss []*harvest.Settled, counted func(outcome harvest.Outcome, n int)) ([]Result, error) {
	out := make([]Result, len(ss))
	if len(ss) == 0 {
		return out, nil
	}
	ps := make([]*store.OutcomeSettleParams, len(ss))
	for i, s := range ss {
		ps[i] = store.SettledOutcome(s)
	}
	res, err := st.OutcomeSettleBatch(ctx, ps)
	if err == nil && len(res) != len(ps) {
		err = fmt.Errorf("the store settled %d outcomes of %d", len(res), len(ps))
	}
	if err != nil {
		for i := range out {
			out[i] = Failed
		}
		return out, err
	}
	fresh := map[harvest.Outcome]int{}
	last := map[string]int{} // each job's last outcome settled in the batch
	for i, r := range res {
		if r.Err != nil {
			out[i] = Failed
			continue
		}
		if r.Fresh {
			fresh[ss[i].Outcome]++
		}
		last[ss[i].JobID] = i
	}
	for _, i := range last {
		if res[i].Job.MayFinish() {
			out[i] = Finish
		}
	}
	if counted != nil {
		for o, n := range fresh {
			counted(o, n)
		}
	}
	return out, nil
}

// Wait bounds one batch's settle statement.
const Wait = time.Minute

// Self is a stage's switch to settle its records itself (its SetSettled): the zero Self is off,
// and the stage sends every outcome to the aggregator.
type Self struct {
	on      bool
	counted func(outcome harvest.Outcome, n int)
	logger  *slog.Logger
}

// NewSelf is a stage settling its records itself: counted, when not nil, is told the new
// outcomes of each batch (report.Handler.Counted: harvester_records_settled_total), and a
// failed statement is logged to logger (nil: slog.Default()).
func NewSelf(counted func(outcome harvest.Outcome, n int), logger *slog.Logger) Self {
	return Self{on: true, counted: counted, logger: cmp.Or(logger, slog.Default())}
}

// Takes says whether the stage settles a record's outcome itself: it is on and the record is
// not a replay (rec.Replay; a replay's outcome changes a finished job's report, which is the
// aggregator's to send again).
func (s Self) Takes(rec *harvest.Record) bool { return s.on && !rec.Replay }

// Settle settles ss (Batch, within Wait) for stage, logs a failed statement, and returns for
// each outcome whether it must still go to the aggregator (Finish or Failed).
func (s Self) Settle(ctx context.Context, st Store, stage string, ss []*harvest.Settled) []bool {
	ctx, cancel := context.WithTimeout(ctx, Wait)
	defer cancel()
	res, err := Batch(ctx, st, ss, s.counted)
	if err != nil {
		s.logger.Warn("settle batch failed; sending its outcomes to the aggregator", "stage", stage, "outcomes", len(ss),
			"error", err)
	}
	send := make([]bool, len(res))
	for i, r := range res {
		send[i] = r != Settled
	}
	return send
}
