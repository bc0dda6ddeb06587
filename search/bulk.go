package search

import (
	"context"
	"errors"
)

// BulkSize is how many operations a Bulk sends in one request.
const BulkSize = 500

// Bulk buffers operations for one writer (a rebuild, a reindex, a reconcile, a delete) and
// sends them BulkSize at a time through apply (an Index's Apply). It is not safe for concurrent
// use; SYNC's concurrent writers use a Batcher instead.
type Bulk struct {
	apply func(context.Context, []Op) ([]error, error)
	ops   []Op
}

// NewBulk returns a Bulk sending through apply.
func NewBulk(apply func(context.Context, []Op) ([]error, error)) *Bulk {
	return &Bulk{apply: apply}
}

// Add buffers op, sending the buffer when it holds BulkSize operations. It returns the
// request's error or the first failed operation's.
func (b *Bulk) Add(ctx context.Context, op Op) error {
	b.ops = append(b.ops, op)
	if len(b.ops) >= BulkSize {
		return b.Flush(ctx)
	}
	return nil
}

// Put is Add of an index operation for doc.
func (b *Bulk) Put(ctx context.Context, doc Document) error {
	return b.Add(ctx, Op{ID: doc.ID, Doc: &doc})
}

// Flush sends what is buffered, as Add fails.
func (b *Bulk) Flush(ctx context.Context) error {
	if len(b.ops) == 0 {
		return nil
	}
	errs, err := b.apply(ctx, b.ops)
	b.ops = b.ops[:0]
	if err != nil {
		return err
	}
	return errors.Join(errs...)
}
