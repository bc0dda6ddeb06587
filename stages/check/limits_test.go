package check

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// checkResult is what a Check called in a goroutine returns.
type checkResult struct {
	results []Result
	err     error
}

// goCheck calls c.Check in a goroutine; the test reads its outcome from the channel.
func goCheck(ctx context.Context, c *Checker, urls []string) <-chan checkResult {
	out := make(chan checkResult, 1)
	go func() {
		r, err := c.Check(ctx, urls)
		out <- checkResult{r, err}
	}()
	return out
}

// receive returns a goCheck's outcome; the minute only stops a hung test.
func receive(t *testing.T, call <-chan checkResult) checkResult {
	t.Helper()
	select {
	case got := <-call:
		return got
	case <-time.After(time.Minute):
		t.Fatal("the call did not return")
	}
	return checkResult{}
}

// The per-host limits hold under load, each on a host that would break it, over four
// concurrent calls of one Checker: a slow host (each answer takes 300 ms, so a rate of 20/s
// alone would keep 6 in flight) never sees more than HostConcurrency at once, and a fast host
// never more than HostRate a second.
func TestCheckHostLimits(t *testing.T) {
	t.Parallel()
	slow := newTestHost(t, func(http.ResponseWriter, *http.Request) { time.Sleep(300 * time.Millisecond) })
	fast := newTestHost(t, func(http.ResponseWriter, *http.Request) {})
	c := newTestChecker(t, Config{HostConcurrency: 2, HostRate: 20})
	var calls []<-chan checkResult
	for call := range 4 {
		var urls []string
		for i := range 3 {
			urls = append(urls, fmt.Sprintf("%s/slow/%d/%d", slow.URL, call, i))
		}
		for i := range 10 {
			urls = append(urls, fmt.Sprintf("%s/fast/%d/%d", fast.URL, call, i))
		}
		calls = append(calls, goCheck(context.Background(), c, urls))
	}
	for _, call := range calls {
		got := <-call
		require.NoError(t, got.err)
		require.Len(t, got.results, 13)
		for _, r := range got.results {
			require.True(t, r.OK, "%+v", r)
		}
	}
	slow.requirePolite(t, 2, 20)
	fast.requirePolite(t, 2, 20)
	require.Len(t, slow.seen(), 12)
	require.Len(t, fast.seen(), 40)
}

// A URL shared by 1,000 datasets is requested once: repeated in a batch, and asked for by
// another call while its check is in flight. A later call checks it again.
func TestCheckOncePerURL(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	host := newTestHost(t, func(http.ResponseWriter, *http.Request) {
		if calls.Add(1) == 1 {
			arrived <- struct{}{}
			<-release
		}
	})
	var releaseOnce sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) }) // before the server's Close
	shared := host.URL + "/shared.csv"
	batch := make([]string, 1000)
	for i := range batch {
		batch[i] = shared
	}
	c := newTestChecker(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // a failed test stops its calls before the server closes
	first := goCheck(ctx, c, batch)
	<-arrived
	second := goCheck(ctx, c, []string{shared, " " + shared})
	waitFor(t, "the second call to wait for the first one's check", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.inflight[shared] != nil && c.inflight[shared].waiters == 1
	})
	releaseOnce.Do(func() { close(release) })
	for _, call := range []<-chan checkResult{first, second} {
		got := receive(t, call)
		require.NoError(t, got.err)
		require.Len(t, got.results, 1)
		require.True(t, got.results[0].OK)
		require.Equal(t, shared, got.results[0].URL)
	}
	require.Equal(t, int32(1), calls.Load(), "one request for 1,000 datasets and a concurrent call")

	_, err := c.Check(ctx, []string{shared})
	require.NoError(t, err)
	require.Equal(t, int32(2), calls.Load(), "a check is not a cache: a later call asks again")
}

// A cancelled call returns what it finished and ctx's error; a check it was running that
// another call waits for is taken over by that call.
func TestCheckCancel(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	arrived := make(chan struct{}, 2)
	host := newTestHost(t, func(_ http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/quick" {
			return
		}
		if calls.Add(1) == 1 {
			arrived <- struct{}{}
			<-r.Context().Done() // the first caller gives up while this one is in flight
		}
	})
	c := newTestChecker(t, Config{HostConcurrency: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := goCheck(ctx, c, []string{host.URL + "/quick", host.URL + "/held"})
	<-arrived
	waiter := goCheck(context.Background(), c, []string{host.URL + "/held"})
	waitFor(t, "the second call to wait", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		f := c.inflight[host.URL+"/held"]
		return f != nil && f.waiters == 1
	})
	cancel()
	got := <-cancelled
	require.ErrorIs(t, got.err, context.Canceled)
	require.Len(t, got.results, 1, "the finished one")
	require.Equal(t, host.URL+"/quick", got.results[0].URL)
	got = <-waiter
	require.NoError(t, got.err)
	require.Len(t, got.results, 1)
	require.True(t, got.results[0].OK, "checked again by the waiting call: %+v", got.results[0])
	require.Equal(t, int32(2), calls.Load())
}

// SetShare divides the per-host limits between the processes that check links: a share of 2
// of HostConcurrency 4 and HostRate 40 sends a slow host at most 2 requests at once (each
// answer takes 200 ms) and a fast host at most 20 a second; with 8 processes, more than the
// concurrency, each keeps one request at a time and 5 a second.
func TestCheckShare(t *testing.T) {
	t.Parallel()
	slow := newTestHost(t, func(http.ResponseWriter, *http.Request) { time.Sleep(200 * time.Millisecond) })
	fast := newTestHost(t, func(http.ResponseWriter, *http.Request) {})
	c := newTestChecker(t, Config{HostConcurrency: 4, HostRate: 40})
	c.SetShare(2)
	var urls []string
	for i := range 8 {
		urls = append(urls, fmt.Sprintf("%s/slow/%d", slow.URL, i))
	}
	for i := range 30 {
		urls = append(urls, fmt.Sprintf("%s/fast/%d", fast.URL, i))
	}
	got := receive(t, goCheck(context.Background(), c, urls))
	require.NoError(t, got.err)
	require.Len(t, got.results, len(urls))
	slow.requirePolite(t, 2, 20)
	fast.requirePolite(t, 2, 20)

	c.SetShare(8)
	fewer := newTestHost(t, func(http.ResponseWriter, *http.Request) { time.Sleep(100 * time.Millisecond) })
	urls = urls[:0]
	for i := range 6 {
		urls = append(urls, fmt.Sprintf("%s/fewer/%d", fewer.URL, i))
	}
	got = receive(t, goCheck(context.Background(), c, urls))
	require.NoError(t, got.err)
	fewer.requirePolite(t, 1, 5)
}
