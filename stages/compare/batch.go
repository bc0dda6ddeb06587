package compare

import (
	"context"

	"github.com/harvester-dev/harvester/store"
)

// insertAll writes the harvest_records of a batch's changed records in one statement and
// returns each one's error. When the statement fails, one bad record (its job deleted with its
// source, say) must not fail the others at every retry: the records are written again one at a
// time, each with its own error. A record whose id exists is left as it is (redelivery). One
// query per record cost ~90 µs of round trip against ~3 µs a key in a batch
// (docs/benchmarks.md, Speed).
func (h *Handler) insertAll(ctx context.Context, recs []*store.RecordInsertParams) []error {
	errs := make([]error, len(recs))
	if len(recs) == 0 {
		return errs
	}
	err := h.store.RecordInsertBatch(ctx, recs)
	if err == nil {
		return errs
	}
	if len(recs) == 1 || ctx.Err() != nil {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	for i, p := range recs {
		_, errs[i] = h.store.RecordInsert(ctx, p)
	}
	return errs
}
