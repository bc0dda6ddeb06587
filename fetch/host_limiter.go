package fetch

import (
	"context"
	"strings"
	"sync"

	"golang.org/x/sync/semaphore"
)

// hostLimiter caps the requests in flight to each host: one weighted semaphore per host, made
// on first use and kept for the life of the process (one per harvest source host, a small set).
type hostLimiter struct {
	max   int64
	mu    sync.Mutex
	slots map[string]*semaphore.Weighted
}

func newHostLimiter(max int) *hostLimiter {
	return &hostLimiter{max: int64(max), slots: map[string]*semaphore.Weighted{}}
}

// acquire waits for a free slot for host (name[:port], case-insensitive) and returns the
// function that frees it; ctx's error when ctx ends first. A nil limiter limits nothing.
func (l *hostLimiter) acquire(ctx context.Context, host string) (release func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	host = strings.ToLower(host)
	l.mu.Lock()
	slot, ok := l.slots[host]
	if !ok {
		slot = semaphore.NewWeighted(l.max)
		l.slots[host] = slot
	}
	l.mu.Unlock()
	if err := slot.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	return func() { slot.Release(1) }, nil
}
