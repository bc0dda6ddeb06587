package extract

import (
	"context"
	"strings"
	"sync"
)

// hostLimiter caps the requests in flight to each host: one counting semaphore (a buffered
// channel) per host, made on first use and kept for the life of the process (one per harvest
// source host, a small set).
type hostLimiter struct {
	max   int
	mu    sync.Mutex
	slots map[string]chan struct{}
}

func newHostLimiter(max int) *hostLimiter {
	return &hostLimiter{max: max, slots: map[string]chan struct{}{}}
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
		slot = make(chan struct{}, l.max)
		l.slots[host] = slot
	}
	l.mu.Unlock()
	select {
	case slot <- struct{}{}:
		return func() { <-slot }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
