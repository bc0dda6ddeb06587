package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/harvester-dev/harvester/groupcommit"
)

// BatcherConfig tunes a Batcher. Zero fields take the documented defaults.
type BatcherConfig struct {
	// MaxOps is the most operations one bulk request carries. Default 500.
	MaxOps int
	// Linger is how long a batch that is not full waits for more operations before it is
	// sent, when no bulk request is in flight. Default 2 ms; operations that arrive while a
	// bulk request is in flight wait for it and go in the next one, so under load batches
	// fill without waiting (group commit).
	Linger time.Duration
	// Attempts is how many times an operation is tried on a retryable failure. Default 5.
	Attempts int
	// Backoff is the wait before the second try; it doubles (with jitter) up to 10 s. Default 200 ms.
	Backoff time.Duration
	// Metrics measures the bulk requests (NewMetrics); nil measures nothing.
	Metrics *Metrics
}

// Batcher groups index writes from many goroutines (SYNC's concurrent handlers) into bulk
// requests (a groupcommit.Batcher), retries retryable failures with backoff, and gives each
// caller its own op's result. No refresh is asked for. Close it to stop its goroutine.
type Batcher struct {
	idx Index
	cfg BatcherConfig
	gc  *groupcommit.Batcher[Op, struct{}]
}

// NewBatcher starts a Batcher writing to idx.
func NewBatcher(idx Index, cfg BatcherConfig) *Batcher {
	cfg.MaxOps = cmp.Or(cfg.MaxOps, 500)
	cfg.Linger = cmp.Or(cfg.Linger, 2*time.Millisecond)
	cfg.Attempts = cmp.Or(cfg.Attempts, 5)
	cfg.Backoff = cmp.Or(cfg.Backoff, 200*time.Millisecond)
	b := &Batcher{idx: idx, cfg: cfg}
	b.gc = groupcommit.New(groupcommit.Config{MaxBatch: cfg.MaxOps, Linger: cfg.Linger}, b.apply)
	return b
}

// ErrClosed is returned for writes to a closed Batcher.
var ErrClosed = errors.New("search index: batcher closed")

// Put indexes doc and waits until its bulk request has succeeded or failed for good. It
// returns the op's error (an *OpError), the last request-level error after all attempts,
// ctx's error, or ErrClosed.
func (b *Batcher) Put(ctx context.Context, doc Document) error {
	return b.do(ctx, Op{ID: doc.ID, Doc: &doc})
}

// Delete removes the document id, as Put waits and fails. A missing document is no error.
func (b *Batcher) Delete(ctx context.Context, id string) error {
	return b.do(ctx, Op{ID: id})
}

func (b *Batcher) do(ctx context.Context, op Op) error {
	_, err := b.gc.Do(ctx, op)
	if errors.Is(err, groupcommit.ErrClosed) {
		return ErrClosed
	}
	return err
}

// Close stops the batcher; writes waiting in it fail with ErrClosed.
func (b *Batcher) Close() { b.gc.Close() }

// apply sends ops in one bulk request, retrying the retryable failures, and returns each op's
// error. ctx ends when the Batcher is closed: ops still waiting for a retry fail with ErrClosed.
func (b *Batcher) apply(ctx context.Context, ops []Op) ([]struct{}, []error, error) {
	errs := make([]error, len(ops))
	todo := make([]int, len(ops)) // indexes into ops still to send
	for i := range ops {
		todo[i] = i
	}
	wait := b.cfg.Backoff
	for attempt := 1; ; attempt++ {
		send := make([]Op, len(todo))
		for j, i := range todo {
			send[j] = ops[i]
		}
		actx, cancel := context.WithTimeout(context.Background(), time.Minute)
		start := time.Now()
		opErrs, err := b.idx.Apply(actx, send)
		cancel()
		b.cfg.Metrics.request(start, err)
		var retry []int
		for j, i := range todo {
			e := err
			if e == nil && j < len(opErrs) {
				e = opErrs[j]
			}
			switch {
			case e == nil:
				errs[i] = nil
			case Retryable(e) && attempt < b.cfg.Attempts:
				retry = append(retry, i)
			case err != nil:
				errs[i] = fmt.Errorf("search index: bulk request failed %d times: %w", attempt, e)
			default:
				errs[i] = e
			}
		}
		b.count(todo, retry, errs)
		if todo = retry; len(todo) == 0 {
			return make([]struct{}, len(ops)), errs, nil
		}
		select {
		case <-time.After(wait/2 + rand.N(wait/2+1)):
		case <-ctx.Done():
			for _, i := range todo {
				errs[i] = ErrClosed
			}
			return make([]struct{}, len(ops)), errs, nil
		}
		wait = min(2*wait, 10*time.Second)
	}
}

// count counts the ops of one attempt (todo) by result: retried, failed for good, or ok.
func (b *Batcher) count(todo, retry []int, errs []error) {
	if b.cfg.Metrics == nil {
		return
	}
	failed := 0
	for _, i := range todo {
		if errs[i] != nil {
			failed++
		}
	}
	b.cfg.Metrics.op("retried", len(retry))
	b.cfg.Metrics.op("failed", failed)
	b.cfg.Metrics.op("ok", len(todo)-len(retry)-failed)
}
