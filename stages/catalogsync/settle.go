package catalogsync

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/settle"
)

// SetSettled makes SYNC settle the outcomes of the records it writes itself, in one
// store.Store.OutcomeSettleBatch a batch (package settle: the job aggregator's statement, counts,
// the record's status, error rows and source_transform, once per key), instead of sending each
// to the aggregator (harvest.SubjectSettled): a record added or updated crosses one JetStream hop
// fewer. The aggregator is sent the outcome of one record of a job only when the batch's job
// row says the job may finish (store.HarvestJob.MayFinish): it settles it again (a no-op),
// finishes the job and reports it. counted, when not nil, is told how many new outcomes of each
// kind a batch settled (report.Handler.Counted: harvester_records_settled_total). A replayed
// record, a record refused because its job ended, and every record of a batch whose statement
// failed still go to the aggregator (a replay's report of a finished job is the aggregator's);
// a failed statement is logged to logger (nil: slog.Default()). Call it before the handler runs.
func (h *Handler) SetSettled(counted func(outcome harvest.Outcome, n int), logger *slog.Logger) {
	h.settles, h.counted, h.logger = true, counted, cmp.Or(logger, slog.Default())
}

// settleWait bounds one batch's settle statement.
const settleWait = time.Minute

// settle settles the outcomes apply left on items (settled: records of a job in progress that
// SYNC wrote) in one statement (settle.Batch), and gives the aggregator those it must still
// see: the last of a job that may finish, and any not settled.
func (h *Handler) settle(ctx context.Context, items []synced, out []harvest.Result) {
	var ss []*harvest.Settled
	var at []int
	for i := range items {
		if items[i].settled != nil && out[i].Err == nil {
			ss, at = append(ss, items[i].settled), append(at, i)
		}
	}
	if len(ss) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	res, err := settle.Batch(ctx, h.store, ss, h.counted)
	if err != nil {
		h.logger.Warn("sync: settle batch failed; sending its outcomes to the aggregator", "outcomes", len(ss), "error", err)
	}
	for j, i := range at {
		if res[j] != settle.Settled {
			h.toAggregator(items, out, i)
		}
	}
}

// toAggregator adds item i's settled outcome to its output, for the aggregator to settle (again:
// a settled key is counted once).
func (h *Handler) toAggregator(items []synced, out []harvest.Result, i int) {
	m, err := harvest.Settle(items[i].settled)
	if err != nil {
		out[i].Out, out[i].Err = nil, err
		return
	}
	out[i].Out = append(m, out[i].Out...)
}
