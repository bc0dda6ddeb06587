package check

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// hostIdle is how long a host with nothing in flight keeps its state (and a slowed-down rate)
// before a sweep may forget it.
const hostIdle = time.Minute

// minSweep is the size of the host map below which it is never swept.
const minSweep = 1024

// hostLimiter holds each host's politeness: at most concurrency requests in flight, requests
// started at most rate a second (golang.org/x/time/rate, a bucket of one), and a pause until a
// Retry-After has passed. Hosts are made on first use and swept once idle for hostIdle, so a
// stream of ever new hosts keeps memory flat.
type hostLimiter struct {
	concurrency int
	rate        rate.Limit
	now         func() time.Time

	mu      sync.Mutex
	hosts   map[string]*hostState
	sweepAt int // sweep when the map reaches this size
}

// hostState is one host's limits. refs, lastUsed and pausedUntil are guarded by hostLimiter.mu.
type hostState struct {
	slots       chan struct{} // a token held per request in flight
	limiter     *rate.Limiter
	refs        int // requests waiting or in flight
	lastUsed    time.Time
	pausedUntil time.Time
}

func newHostLimiter(concurrency int, perSecond float64) *hostLimiter {
	return &hostLimiter{concurrency: concurrency, rate: rate.Limit(perSecond), now: time.Now,
		hosts: map[string]*hostState{}, sweepAt: minSweep}
}

// acquire waits for host's turn: a free slot, the end of a pause, then a token of its rate. It
// returns the function that frees the slot, or ctx's error when ctx ends first.
func (l *hostLimiter) acquire(ctx context.Context, host string) (release func(), err error) {
	l.mu.Lock()
	h := l.hosts[host]
	if h == nil {
		l.sweepLocked()
		h = &hostState{slots: make(chan struct{}, l.concurrency), limiter: rate.NewLimiter(l.rate, 1)}
		l.hosts[host] = h
	}
	h.refs++
	l.mu.Unlock()
	done := func() {
		l.mu.Lock()
		h.refs--
		h.lastUsed = l.now()
		l.mu.Unlock()
	}
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
	release = func() { <-h.slots; done() }
	if err := l.waitPause(ctx, h); err != nil {
		release()
		return nil, err
	}
	if err := h.limiter.Wait(ctx); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// waitPause waits until h's pause (a Retry-After) has passed.
func (l *hostLimiter) waitPause(ctx context.Context, h *hostState) error {
	for {
		l.mu.Lock()
		wait := h.pausedUntil.Sub(l.now())
		l.mu.Unlock()
		if wait <= 0 {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// throttle is a 429 or 503 from host: no request starts there for pause, and its rate halves,
// down to an eighth of the configured one, until the host is forgotten (hostIdle).
func (l *hostLimiter) throttle(host string, pause time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.hosts[host]
	if h == nil { // swept meanwhile: nothing in flight there, so nothing to slow down
		return
	}
	if until := l.now().Add(pause); until.After(h.pausedUntil) {
		h.pausedUntil = until
	}
	h.limiter.SetLimit(max(h.limiter.Limit()/2, l.rate/8))
}

// limit returns host's current rate, 0 when it has no state.
func (l *hostLimiter) limit(host string) rate.Limit {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h := l.hosts[host]; h != nil {
		return h.limiter.Limit()
	}
	return 0
}

// sweepLocked forgets the hosts idle for hostIdle once the map has grown to sweepAt, and sets
// the next sweep at twice what is left (amortised: a sweep per doubling).
func (l *hostLimiter) sweepLocked() {
	if len(l.hosts) < l.sweepAt {
		return
	}
	now := l.now()
	for name, h := range l.hosts {
		if h.refs == 0 && now.Sub(h.lastUsed) > hostIdle && !h.pausedUntil.After(now) {
			delete(l.hosts, name)
		}
	}
	l.sweepAt = max(minSweep, 2*len(l.hosts))
}
