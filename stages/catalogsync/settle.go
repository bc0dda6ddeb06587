package catalogsync

import (
	"context"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/settle"
)

// SetSettled makes SYNC settle the outcomes of the records it writes itself, one statement a
// batch (package settle: the job aggregator's statement), instead of sending each to the
// aggregator: a record added or updated crosses one JetStream hop fewer. The aggregator still
// gets the outcome of a job's last record of a batch that reached its expected count (it then
// finishes and reports the job), any the statement did not settle, a replay's, and a record's
// refused because its job ended (settle.Self). Call it before the handler runs.
func (h *Handler) SetSettled(self settle.Self) { h.self = self }

// settle settles the outcomes apply left on items (settled) in one statement, and sends the
// aggregator those it must still see.
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
	for j, send := range h.self.Settle(ctx, h.store, harvest.StageSync, ss) {
		if i := at[j]; send {
			m, err := harvest.Settle(items[i].settled)
			if err != nil {
				out[i].Out, out[i].Err = nil, err
				continue
			}
			out[i].Out = append(m, out[i].Out...)
		}
	}
}
