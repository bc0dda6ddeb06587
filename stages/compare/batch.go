package compare

import (
	"context"
	"fmt"
	"time"

	"github.com/harvester-dev/harvester/groupcommit"
	"github.com/harvester-dev/harvester/store"
)

// The batchers group the database work of COMPARE's concurrent handlers: one query answers
// the lookups of every record that is waiting, one statement inserts their records. One query
// per record cost ~90 µs of round trip against ~3 µs a key in a batch (docs/benchmarks.md, Speed).
//
// Linger is short: about one single-row round trip, so that a few handlers (--concurrency 1)
// do not wait longer for a batch than a query of their own would take; under load batches fill
// from the records that queue while a commit runs. BenchmarkHandleRecord, 32 handlers on 2
// busy cores: 2 ms lingers gave 3,700-4,100 creates/s, 200 µs 5,000-7,900; with 4 handlers
// 600 against 900-1,400.
var (
	// lookupBatch: reads, so two batches may be in flight at once, one filling while the other
	// runs.
	lookupBatch = groupcommit.Config{MaxBatch: 500, Linger: 100 * time.Microsecond, Commits: 2}
	// insertBatch: one at a time, so that inserts fill fuller batches.
	insertBatch = groupcommit.Config{MaxBatch: 500, Linger: 100 * time.Microsecond, Commits: 1}
)

// batchers are COMPARE's two group-commit batchers over one store.
type batchers struct {
	st      Store
	lookups *groupcommit.Batcher[store.RecordCompareKey, *store.RecordCompare]
	inserts *groupcommit.Batcher[*store.RecordInsertParams, struct{}]
}

func newBatchers(st Store) *batchers {
	b := &batchers{st: st}
	b.lookups = groupcommit.New(lookupBatch, b.lookupMany)
	b.inserts = groupcommit.New(insertBatch, b.insertMany)
	return b
}

func (b *batchers) close() {
	b.lookups.Close()
	b.inserts.Close()
}

// lookup returns what the store knows of one record, looked up together with the records of
// the other handlers waiting at the same time. Any error is worth a retry.
func (b *batchers) lookup(ctx context.Context, k store.RecordCompareKey) (*store.RecordCompare, error) {
	c, err := b.lookups.Do(ctx, k)
	if err != nil {
		return nil, fmt.Errorf("look up stored records: %w", err)
	}
	return c, nil
}

// insert writes one record, inserted together with the records of the other handlers waiting
// at the same time. A record whose id exists is left as it is (redelivery).
func (b *batchers) insert(ctx context.Context, p *store.RecordInsertParams) error {
	if _, err := b.inserts.Do(ctx, p); err != nil {
		return fmt.Errorf("insert harvest_record: %w", err)
	}
	return nil
}

func (b *batchers) lookupMany(ctx context.Context, keys []store.RecordCompareKey) ([]*store.RecordCompare, []error, error) {
	got, err := b.st.RecordCompareBatch(ctx, keys)
	return got, nil, err
}

// insertMany writes the batch in one statement. When that fails, one bad record (its job
// deleted with its source, say) must not fail the others at every retry: the batch is written
// again one record at a time, and each record gets its own error.
func (b *batchers) insertMany(ctx context.Context, recs []*store.RecordInsertParams) ([]struct{}, []error, error) {
	results := make([]struct{}, len(recs))
	err := b.st.RecordInsertBatch(ctx, recs)
	if err == nil || len(recs) == 1 || ctx.Err() != nil {
		return results, nil, err
	}
	errs := make([]error, len(recs))
	for i, p := range recs {
		_, errs[i] = b.st.RecordInsert(ctx, p)
	}
	return results, errs, nil
}
