package compare

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/settle"
)

// SetSettled makes COMPARE settle its unchanged records itself, in one statement a batch
// (settle.Batch: the job aggregator's statement), instead of sending each outcome to the
// aggregator (harvest.SubjectSettled): an unchanged record of a WAF, portal, RDF or CSW source
// crosses one JetStream hop, EXTRACT → COMPARE, not two. The aggregator is sent the outcome of
// one record of a job only when the batch's job row says the job may finish
// (store.HarvestJob.MayFinish), and every outcome the statement did not settle. counted, when
// not nil, is told how many new outcomes of each kind a batch settled (report.Handler.Counted:
// harvester_records_settled_total). A replayed record's outcome still goes to the aggregator;
// a failed statement is logged to logger (nil: slog.Default()). Call it before the handler
// runs.
func (h *Handler) SetSettled(counted func(outcome harvest.Outcome, n int), logger *slog.Logger) {
	h.settles, h.counted, h.logger = true, counted, cmp.Or(logger, slog.Default())
}

// settleWait bounds one batch's settle statement.
const settleWait = time.Minute

// unchanged settles it as s: left on it for the batch's statement when COMPARE settles itself
// and the record is not a replay, or sent to the aggregator in res.
func (h *Handler) unchanged(it *compared, res *harvest.Result, s *harvest.Settled) {
	if h.settles && !it.rec.Replay {
		it.settled = s
		return
	}
	res.Out, res.Err = harvest.Settle(s)
}

// settle settles the outcomes decideOne left on items in one statement, and gives the
// aggregator those it must still see: the last of a job that may finish, and any not settled.
func (h *Handler) settle(ctx context.Context, items []compared, out []harvest.Result) {
	var ss []*harvest.Settled
	var at []int
	for i := range items {
		if items[i].settled != nil {
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
		h.logger.Warn("compare: settle batch failed; sending its outcomes to the aggregator", "outcomes", len(ss), "error", err)
	}
	for j, i := range at {
		if res[j] != settle.Settled {
			out[i].Out, out[i].Err = harvest.Settle(items[i].settled)
		}
	}
}
