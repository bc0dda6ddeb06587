package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
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
}

// Batcher groups index writes from many goroutines (SYNC's concurrent handlers) into bulk
// requests, retries retryable failures with backoff, and gives each caller its own op's
// result. No refresh is asked for. Close it to stop its goroutine.
type Batcher struct {
	idx  Index
	cfg  BatcherConfig
	ops  chan *pending
	done chan struct{}
	once sync.Once
}

type pending struct {
	ctx context.Context
	op  Op
	err chan error
}

// NewBatcher starts a Batcher writing to idx.
func NewBatcher(idx Index, cfg BatcherConfig) *Batcher {
	cfg.MaxOps = cmp.Or(cfg.MaxOps, 500)
	cfg.Linger = cmp.Or(cfg.Linger, 2*time.Millisecond)
	cfg.Attempts = cmp.Or(cfg.Attempts, 5)
	cfg.Backoff = cmp.Or(cfg.Backoff, 200*time.Millisecond)
	b := &Batcher{idx: idx, cfg: cfg, ops: make(chan *pending, cfg.MaxOps), done: make(chan struct{})}
	go b.loop()
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
	p := &pending{ctx: ctx, op: op, err: make(chan error, 1)}
	select {
	case <-b.done:
		return ErrClosed
	default:
	}
	select {
	case b.ops <- p:
	case <-b.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-p.err:
		return err
	case <-b.done: // closed before this op was sent (it may or may not have been applied)
		select {
		case err := <-p.err:
			return err
		default:
			return ErrClosed
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the batcher; writes waiting in it fail with ErrClosed.
func (b *Batcher) Close() {
	b.once.Do(func() { close(b.done) })
}

func (b *Batcher) loop() {
	for {
		var first *pending
		select {
		case first = <-b.ops:
		case <-b.done:
			return
		}
		batch := []*pending{first}
		linger := time.NewTimer(b.cfg.Linger)
	fill:
		for len(batch) < b.cfg.MaxOps {
			select {
			case p := <-b.ops:
				batch = append(batch, p)
			case <-linger.C:
				break fill
			case <-b.done:
				break fill
			}
		}
		linger.Stop()
		b.send(batch)
	}
}

// send applies batch, retrying the retryable failures, and answers every caller.
func (b *Batcher) send(batch []*pending) {
	wait := b.cfg.Backoff
	for attempt := 1; len(batch) > 0; attempt++ {
		live := batch[:0]
		for _, p := range batch {
			if p.ctx.Err() != nil {
				p.err <- p.ctx.Err()
				continue
			}
			live = append(live, p)
		}
		batch = live
		if len(batch) == 0 {
			return
		}
		ops := make([]Op, len(batch))
		for i, p := range batch {
			ops[i] = p.op
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		errs, err := b.idx.Apply(ctx, ops)
		cancel()
		var retry []*pending
		for i, p := range batch {
			e := err
			if e == nil && i < len(errs) {
				e = errs[i]
			}
			switch {
			case e == nil:
				p.err <- nil
			case Retryable(e) && attempt < b.cfg.Attempts:
				retry = append(retry, p)
			case err != nil:
				p.err <- fmt.Errorf("search index: bulk request failed %d times: %w", attempt, e)
			default:
				p.err <- e
			}
		}
		batch = retry
		if len(batch) == 0 {
			return
		}
		select {
		case <-time.After(wait/2 + rand.N(wait/2+1)):
		case <-b.done:
			for _, p := range batch {
				p.err <- ErrClosed
			}
			return
		}
		wait = min(2*wait, 10*time.Second)
	}
}
