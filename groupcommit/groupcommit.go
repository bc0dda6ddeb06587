// Package groupcommit groups work items from many goroutines into one call (group commit):
// a stage's concurrent handlers each submit one item and wait, and one goroutine hands
// whatever has queued, up to a batch size, to a commit function — one bulk request, one
// database transaction, one multi-row query instead of one per item. Under load batches fill
// without waiting, since items that arrive while a commit is in flight go in the next one;
// an optional linger lets a batch gather when idle, for commits with a high fixed cost.
package groupcommit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Config tunes a Batcher. Zero fields take the documented defaults.
type Config struct {
	// MaxBatch is the most items one commit takes. Default 500.
	MaxBatch int
	// Linger is how long a batch that is not full waits for more items before it is
	// committed, when no commit is in flight. Zero: it is committed at once with what has
	// queued (items arriving meanwhile go in the next batch).
	Linger time.Duration
	// Commits is how many commits may run at once, each on its own batch. Default 1: batches
	// are committed in order, one at a time (writes that contend on the same rows).
	Commits int
}

// Func commits one batch. It returns one result and one error per item, in the items' order
// (a nil errs means none failed), or a non-nil err that fails every item of the batch. ctx
// ends when the Batcher is closed.
type Func[T, R any] func(ctx context.Context, items []T) (results []R, errs []error, err error)

// ErrClosed is returned for items submitted to, or still waiting in, a closed Batcher.
var ErrClosed = errors.New("groupcommit: closed")

// Batcher groups the items of concurrent Do calls into calls of its Func. Close it to stop
// its goroutines.
type Batcher[T, R any] struct {
	fn     Func[T, R]
	cfg    Config
	items  chan *pending[T, R]
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
}

type pending[T, R any] struct {
	ctx    context.Context
	item   T
	answer chan answer[R] // buffered: a caller that gave up is never waited for
}

type answer[R any] struct {
	result R
	err    error
}

// New starts a Batcher that commits with fn.
func New[T, R any](cfg Config, fn Func[T, R]) *Batcher[T, R] {
	cfg.MaxBatch = cmp.Or(cfg.MaxBatch, 500)
	cfg.Commits = cmp.Or(cfg.Commits, 1)
	ctx, cancel := context.WithCancel(context.Background())
	b := &Batcher[T, R]{fn: fn, cfg: cfg, items: make(chan *pending[T, R], cfg.MaxBatch), done: make(chan struct{}),
		ctx: ctx, cancel: cancel}
	for range cfg.Commits {
		go b.loop()
	}
	return b
}

// Do submits item and waits for its batch to be committed. It returns the item's result and
// error from the Func, ctx's error when ctx ends first (the item may still be committed), or
// ErrClosed when the Batcher is closed before the item's batch was committed.
func (b *Batcher[T, R]) Do(ctx context.Context, item T) (R, error) {
	var zero R
	p := &pending[T, R]{ctx: ctx, item: item, answer: make(chan answer[R], 1)}
	select {
	case <-b.done:
		return zero, ErrClosed
	default:
	}
	select {
	case b.items <- p:
	case <-b.done:
		return zero, ErrClosed
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	select {
	case a := <-p.answer:
		return a.result, a.err
	case <-b.done: // closed while waiting: the item may be in a commit that still answers
		select {
		case a := <-p.answer:
			return a.result, a.err
		case <-time.After(b.cfg.Linger):
			return zero, ErrClosed
		}
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// Queued returns how many items wait for a commit (not counting those in one).
func (b *Batcher[T, R]) Queued() int { return len(b.items) }

// Close stops the Batcher: items waiting in it fail with ErrClosed, and the context of a
// commit in flight ends. Calling it again is safe.
func (b *Batcher[T, R]) Close() {
	b.once.Do(func() {
		close(b.done)
		b.cancel()
	})
}

func (b *Batcher[T, R]) loop() {
	for {
		var first *pending[T, R]
		select {
		case first = <-b.items:
		case <-b.done:
			return
		}
		batch := []*pending[T, R]{first}
		var linger <-chan time.Time // nil: no linger
		if b.cfg.Linger > 0 {
			t := time.NewTimer(b.cfg.Linger)
			linger = t.C
			defer t.Stop()
		}
	fill:
		for len(batch) < b.cfg.MaxBatch {
			select { // take what has queued without waiting, then linger for more
			case p := <-b.items:
				batch = append(batch, p)
				continue
			default:
			}
			if linger == nil {
				break
			}
			select {
			case p := <-b.items:
				batch = append(batch, p)
			case <-linger:
				break fill
			case <-b.done:
				break fill
			}
		}
		b.commit(batch)
	}
}

// commit runs fn on the batch's live items and answers every caller.
func (b *Batcher[T, R]) commit(batch []*pending[T, R]) {
	live := batch[:0]
	for _, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.answer <- answer[R]{err: err}
			continue
		}
		live = append(live, p)
	}
	if len(live) == 0 {
		return
	}
	select {
	case <-b.done:
		for _, p := range live {
			p.answer <- answer[R]{err: ErrClosed}
		}
		return
	default:
	}
	items := make([]T, len(live))
	for i, p := range live {
		items[i] = p.item
	}
	results, errs, err := b.call(items)
	if err == nil && (len(results) != len(items) || (errs != nil && len(errs) != len(items))) {
		err = fmt.Errorf("groupcommit: commit returned %d results and %d errors for %d items",
			len(results), len(errs), len(items))
	}
	for i, p := range live {
		switch {
		case err != nil:
			p.answer <- answer[R]{err: err}
		case errs != nil:
			p.answer <- answer[R]{result: results[i], err: errs[i]}
		default:
			p.answer <- answer[R]{result: results[i]}
		}
	}
}

// call runs fn, turning a panic into an error for the batch so that no caller waits forever.
func (b *Batcher[T, R]) call(items []T) (results []R, errs []error, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("groupcommit: commit panicked: %v", r)
		}
	}()
	return b.fn(b.ctx, items)
}
