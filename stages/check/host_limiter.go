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
// stream of ever new hosts keeps memory flat. The limits are this process's share of the
// configured ones (setShare), which the processes running CHECK divide between them.
type hostLimiter struct {
	maxConcurrency int        // the configured limits, of the whole deployment
	maxRate        rate.Limit //
	now            func() time.Time

	mu          sync.Mutex
	concurrency int        // this process's share of maxConcurrency
	rate        rate.Limit // and of maxRate
	hosts       map[string]*hostState
	sweepAt     int // sweep when the map reaches this size
}

// hostState is one host's limits, guarded by hostLimiter.mu but for limiter, which is safe to
// share.
type hostState struct {
	inFlight    int
	freed       chan struct{} // closed (and replaced) when a request in flight ends
	limiter     *rate.Limiter
	slow        float64 // 1, or 2, 4, 8 after 429s and 503s: the rate is divided by it
	refs        int     // requests waiting or in flight
	lastUsed    time.Time
	pausedUntil time.Time
}

func newHostLimiter(concurrency int, perSecond float64) *hostLimiter {
	return &hostLimiter{maxConcurrency: concurrency, maxRate: rate.Limit(perSecond), now: time.Now,
		concurrency: concurrency, rate: rate.Limit(perSecond), hosts: map[string]*hostState{}, sweepAt: minSweep}
}

// setShare makes the limits of each host this process's share when n processes check links
// (n < 1 counts as 1): at most max(1, concurrency/n) requests in flight (rounded down; with
// more processes than the concurrency each keeps one, so a host may see n at once) and rate/n
// a second (a host's slowdown after a 429 or 503 kept). Requests in flight are not stopped: a
// smaller share holds from the next request on.
func (l *hostLimiter) setShare(n int) {
	n = max(n, 1)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.concurrency = max(1, l.maxConcurrency/n)
	l.rate = l.maxRate / rate.Limit(n)
	for _, h := range l.hosts {
		h.limiter.SetLimit(l.rate / rate.Limit(h.slow))
		l.wakeLocked(h) // a larger share lets waiting requests go now
	}
}

// wakeLocked wakes the requests waiting for one of h's slots.
func (l *hostLimiter) wakeLocked(h *hostState) {
	close(h.freed)
	h.freed = make(chan struct{})
}

// acquire waits for host's turn: a free slot, the end of a pause, then a token of its rate. It
// returns the function that frees the slot, or ctx's error when ctx ends first.
func (l *hostLimiter) acquire(ctx context.Context, host string) (release func(), err error) {
	l.mu.Lock()
	h := l.hosts[host]
	if h == nil {
		l.sweepLocked()
		h = &hostState{freed: make(chan struct{}), limiter: rate.NewLimiter(l.rate, 1), slow: 1}
		l.hosts[host] = h
	}
	h.refs++
	for h.inFlight >= l.concurrency {
		freed := h.freed
		l.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			l.mu.Lock()
			h.refs--
			h.lastUsed = l.now()
			l.mu.Unlock()
			return nil, ctx.Err()
		}
		l.mu.Lock()
	}
	h.inFlight++
	l.mu.Unlock()
	release = func() {
		l.mu.Lock()
		h.inFlight--
		h.refs--
		h.lastUsed = l.now()
		l.wakeLocked(h)
		l.mu.Unlock()
	}
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
	h.slow = min(2*h.slow, 8)
	h.limiter.SetLimit(l.rate / rate.Limit(h.slow))
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
