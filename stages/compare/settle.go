package compare

import (
	"context"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/settle"
)

// SetSettled makes COMPARE settle its unchanged records itself, one statement a batch (package
// settle), instead of sending each outcome to the aggregator: an unchanged record of a WAF,
// portal, RDF or CSW source crosses one JetStream hop, EXTRACT → COMPARE, not two. The
// aggregator still gets the outcome of a job's last record of a batch that reached its expected
// count, any the statement did not settle, and a replay's (settle.Self). Call it before the
// handler runs.
func (h *Handler) SetSettled(self settle.Self) { h.self = self }

// unchanged settles it as s: left on it for the batch's statement when COMPARE settles it
// itself, or sent to the aggregator in res.
func (h *Handler) unchanged(it *compared, res *harvest.Result, s *harvest.Settled) {
	if h.self.Takes(&it.rec) {
		it.settled = s
		return
	}
	res.Out, res.Err = harvest.Settle(s)
}

// settle settles the outcomes decideOne left on items in one statement, and sends the
// aggregator those it must still see.
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
	for j, send := range h.self.Settle(ctx, h.store, harvest.StageCompare, ss) {
		if i := at[j]; send {
			out[i].Out, out[i].Err = harvest.Settle(items[i].settled)
		}
	}
}
