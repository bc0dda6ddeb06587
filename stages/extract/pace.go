package extract

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// HeartbeatEvery is how many listed records pass between two job heartbeats, so a long
// listing is not taken for an orphan.
const HeartbeatEvery = 1000

// next counts one more entry of the listing and returns its 0-based position, with a job
// heartbeat every HeartbeatEvery entries.
func (l *Run) Next() (int, error) {
	if err := l.pace(); err != nil {
		return l.listed, err
	}
	pos := l.listed
	l.listed++
	if l.listed%HeartbeatEvery == 0 {
		if err := l.h.store.JobHeartbeat(l.ctx, l.job.JobID); err != nil {
			return pos, fmt.Errorf("job heartbeat: %w", err)
		}
	}
	return pos, nil
}

// paceFirstWait and paceMaxWait bound the pause between two reads of a paced job's settled
// count: it starts short (the pipeline settles a small batch in milliseconds) and doubles.
const (
	paceFirstWait = 2 * time.Millisecond
	paceMaxWait   = 50 * time.Millisecond
)

// pace holds the listing while its window (window: Config.JobWindow, less while the job gives
// way) of its records are in flight (listed, not settled), until at most half of the window
// is: one store read of the job per half window listed, and a few more while it waits. In
// flight is an estimate that only errs low (a
// re-driven job's settled count includes the outcomes of its earlier run), so pacing slows a
// listing down, never loses a record. A job that settles nothing for Config.StallTimeout (a
// lost message, a stage that is down) is listed on unpaced, and one that ended meanwhile
// (cancelled, failed) is listed on as before.
func (l *Run) pace() error {
	if l.h.cfg.JobWindow < 0 || l.unpaced {
		return nil
	}
	w, err := l.window()
	if err != nil || l.listed-l.settled < w {
		return err
	}
	if err := l.flushClaims(); err != nil { // the records counted as listed are on their way
		return err
	}
	stopped, err := l.waitSettled(func(settled int) (bool, error) {
		l.settled = settled
		w, err := l.window()
		return l.listed-l.settled <= w/2, err
	})
	l.unpaced = l.unpaced || stopped
	return err
}

// waitSettled reads the job's settled count until done says the wait is over, the job ended,
// or waiting is pointless: no record of the job settled for Config.StallTimeout, or the job
// was deleted with its source (stopped is then true). It pauses between reads from
// paceFirstWait, doubling up to paceMaxWait. Its errors are the context's, the store's and
// done's.
func (l *Run) waitSettled(done func(settled int) (bool, error)) (stopped bool, err error) {
	last, since := -1, time.Now()
	wait := paceFirstWait
	for {
		job, err := l.h.store.JobGet(l.ctx, l.job.JobID)
		if errors.Is(err, store.ErrNotFound) {
			return true, nil // deleted with its source: the handler's job check sees it next time
		}
		if err != nil {
			return false, fmt.Errorf("read job progress: %w", err)
		}
		if ok, err := done(job.Settled); err != nil || ok || job.Status.Finished() {
			return false, err
		}
		switch {
		case job.Settled != last:
			last, since = job.Settled, time.Now()
		case time.Since(since) >= l.h.cfg.StallTimeout:
			return true, nil
		}
		if err := sleepCtx(l.ctx, wait); err != nil {
			return false, err
		}
		wait = min(2*wait, paceMaxWait)
	}
}

// fail fails the job of a listing that cannot be completed (a *PortalListingError, say),
// once the records it sent on have settled: every listed entry settles exactly once (an error
// row, or an outcome of the stage that ends it), so the wait ends when the job's settled count
// reaches the entries listed. Records in flight are then counted, and SYNC's writes are the
// job's counts: failing the job at once left the records the stages were still working on
// uncounted (an outcome of a finished job changes nothing), some written to the catalog and
// left pending, so the next run reported them as updates. The wait gives up when the job
// settles nothing for Config.StallTimeout (store.Store.JobFail then settles what is still
// pending).
func (l *Run) Fail(kind string, cause error) error {
	if l.listed > 0 {
		if _, err := l.waitSettled(func(settled int) (bool, error) { return settled >= l.listed, nil }); err != nil {
			return err
		}
	}
	return l.h.Fail(l.ctx, l.job, kind, cause)
}

// window returns the job's window now: Config.JobWindow, or a giveWayDivisor-th of it while
// the job, past its first window, has running jobs behind it (Config.JobWindow).
func (l *Run) window() (int, error) {
	w := l.h.cfg.JobWindow
	if l.listed <= w {
		return w, nil // a job within its first window never gives way
	}
	if time.Since(l.behindAt) >= giveWayRecheck {
		n, err := l.h.store.JobCountBehind(l.ctx, l.job.JobID, l.settled)
		if err != nil {
			return w, fmt.Errorf("count the jobs behind: %w", err)
		}
		l.behind, l.behindAt = n > 0, time.Now()
	}
	if l.behind {
		return max(w/giveWayDivisor, 2), nil
	}
	return w, nil
}

// sleepCtx waits d, or returns ctx's error when it ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
