package check

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Checker checks links politely (the package comment). It is safe for concurrent use; one per
// process, so that every check of a host shares that host's limits.
type Checker struct {
	cfg      Config
	client   *http.Client
	hosts    *hostLimiter
	parallel chan struct{} // a token per check in flight, over all calls

	mu       sync.Mutex
	inflight map[string]*flight
}

// flight is a check in progress that other calls wait for. res and err are set before done is
// closed; waiters is guarded by Checker.mu.
type flight struct {
	done    chan struct{}
	res     Result
	err     error
	waiters int
}

// New returns a Checker for cfg (completed by WithDefaults), or an error naming the field that
// is out of range.
func New(cfg Config) (*Checker, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}
	if guard := cfg.guard; guard != nil {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("dial %s: cannot read the address: %w", address, err)
			}
			return guard(ap.Addr())
		}
	}
	transport := &http.Transport{
		Proxy:                 nil, // never from the environment: the guard must see the address dialled
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		ForceAttemptHTTP2:     true,
		DisableCompression:    true, // a check reads a byte; gzip would only blur Content-Length
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   cfg.HostConcurrency,
		IdleConnTimeout:       30 * time.Second,
	}
	client := &http.Client{Transport: transport,
		// Redirects are followed by check, a hop at a time, each through its host's limits.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Checker{cfg: cfg, client: client, hosts: newHostLimiter(cfg.HostConcurrency, cfg.HostRate),
		parallel: make(chan struct{}, cfg.Parallel), inflight: map[string]*flight{}}, nil
}

// SetShare divides the per-host limits (Config.HostConcurrency and HostRate, which hold for
// the whole deployment) by n, the number of processes checking links now, so that together
// they keep them: this Checker then sends a host at most max(1, HostConcurrency/n) requests at
// a time (rounded down: with more processes than HostConcurrency each keeps one) and
// HostRate/n a second. n < 1 counts as 1 (the default: this process alone). Safe to call at
// any time; requests in flight finish under the share they started with.
func (c *Checker) SetShare(n int) { c.hosts.setShare(n) }

// Check checks each distinct URL of urls (compared after trimming surrounding space, so a URL
// shared by many datasets is checked once) and returns one Result per distinct URL, in the
// order of their first appearance. Each host's URLs are checked by at most Config
// HostConcurrency goroutines at a time, the checks of all hosts by at most Config.Parallel. A
// URL another call is checking right now is waited for and its Result shared. When ctx ends
// before every check did, Check returns the Results finished so far (in the same order) and
// ctx's error; the checks it started stop too.
func (c *Checker) Check(ctx context.Context, urls []string) ([]Result, error) {
	distinct := distinctURLs(urls)
	results := make([]Result, len(distinct))
	done := make([]bool, len(distinct))
	byHost := map[string][]int{}
	var hostOrder []string
	for i, raw := range distinct {
		target, res, ok := c.target(raw, false)
		if !ok {
			results[i], done[i] = res, true
			continue
		}
		key := hostKey(target)
		if byHost[key] == nil {
			hostOrder = append(hostOrder, key)
		}
		byHost[key] = append(byHost[key], i)
	}
	var wg sync.WaitGroup
schedule:
	for _, key := range hostOrder {
		queue := byHost[key]
		var next atomic.Int64
		for range min(c.cfg.HostConcurrency, len(queue)) {
			select {
			case c.parallel <- struct{}{}:
			case <-ctx.Done():
				break schedule
			}
			wg.Go(func() {
				defer func() { <-c.parallel }()
				for ctx.Err() == nil {
					j := next.Add(1) - 1
					if j >= int64(len(queue)) {
						return
					}
					i := queue[j]
					if res, err := c.shared(ctx, distinct[i]); err == nil {
						results[i], done[i] = res, true
					}
				}
			})
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		var finished []Result
		for i, r := range results {
			if done[i] {
				finished = append(finished, r)
			}
		}
		return finished, err
	}
	return results, nil
}

// shared checks raw, or waits for the check of raw another call has in flight. A check whose
// caller's ctx ended is given up, and a waiter whose own ctx goes on checks raw itself.
func (c *Checker) shared(ctx context.Context, raw string) (Result, error) {
	for {
		c.mu.Lock()
		if f := c.inflight[raw]; f != nil {
			f.waiters++
			c.mu.Unlock()
			select {
			case <-f.done:
				if f.err != nil && ctx.Err() == nil {
					continue
				}
				return f.res, f.err
			case <-ctx.Done():
				return Result{}, ctx.Err()
			}
		}
		f := &flight{done: make(chan struct{})}
		c.inflight[raw] = f
		c.mu.Unlock()
		f.res, f.err = c.check(ctx, raw)
		c.mu.Lock()
		delete(c.inflight, raw)
		c.mu.Unlock()
		close(f.done)
		return f.res, f.err
	}
}

// distinctURLs returns urls trimmed, without repeats, in the order of first appearance.
func distinctURLs(urls []string) []string {
	seen := make(map[string]bool, len(urls))
	var out []string
	for _, u := range urls {
		u = strings.TrimSpace(u)
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}
