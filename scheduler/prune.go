package scheduler

import (
	"context"
	"sync"
	"time"
)

// pruneRun is a leader's task in the background (the prune, the link recheck): at most one run
// at a time, started by a tick, ended by stop.
type pruneRun struct {
	mu      sync.Mutex
	cancel  context.CancelFunc // of the run in flight; nil when none
	done    chan struct{}      // closed when the run in flight ends
	started time.Time          // when the last run started (the scheduler's clock); zero: never
}

// startPrune starts a run of Config.Pruner when one is due (none has run yet, or the last one
// started PruneInterval ago or more) and none is in flight, and so for Config.Rechecker and
// RecheckInterval. The run's context is ctx's: it ends with the scheduler's loop.
func (s *Scheduler) startPrune(ctx context.Context) {
	s.startRun(ctx, &s.prune, s.cfg.Pruner, s.cfg.PruneInterval, "pruning the history failed")
	s.startRun(ctx, &s.recheck, s.cfg.Rechecker, s.cfg.RecheckInterval, "queueing stale link checks failed")
}

// startRun starts a run of task in r when one is due (none has run yet, or the last one started
// every ago or more) and none is in flight; failed names its failure in the log.
func (s *Scheduler) startRun(ctx context.Context, r *pruneRun, task Pruner, every time.Duration, failed string) {
	if task == nil {
		return
	}
	now := s.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil || (!r.started.IsZero() && now.Sub(r.started) < every) {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	r.cancel, r.done, r.started = cancel, done, now
	go func() {
		defer close(done)
		err := task.Prune(ctx, now)
		if err != nil && ctx.Err() == nil {
			s.logger.Error(failed+"; it is tried again at the next interval", "error", err)
		}
		r.mu.Lock()
		if r.done == done {
			r.cancel, r.done = nil, nil
		}
		r.mu.Unlock()
		cancel()
	}()
}

// stop ends the run in flight, if any, and waits for it.
func (r *pruneRun) stop() {
	r.mu.Lock()
	cancel, done := r.cancel, r.done
	r.cancel, r.done = nil, nil
	r.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}
