package check

import (
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
)

// allowLoopback is the SSRF guard of the tests: the test servers are on loopback, every other
// address fetch refuses stays refused (10.0.0.1, 169.254.169.254, …).
func allowLoopback(ip netip.Addr) error {
	if ip.Unmap().IsLoopback() {
		return nil
	}
	return fetch.RefuseAddress(ip)
}

// newTestChecker is New(cfg) with the test guard.
func newTestChecker(t testing.TB, cfg Config) *Checker {
	t.Helper()
	cfg.guard = allowLoopback
	c, err := New(cfg)
	require.NoError(t, err)
	return c
}

// testHost is one host of the loopback site (a listener of its own, so a host of its own for
// the checker's limits). Its handler counts what politeness is about: the requests in flight
// (their maximum) and when each request arrived.
type testHost struct {
	*httptest.Server
	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	arrivals    []time.Time
	requests    []string // "METHOD path range"
}

func newTestHost(t testing.TB, h http.HandlerFunc) *testHost {
	t.Helper()
	th := &testHost{}
	th.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		th.mu.Lock()
		th.inFlight++
		th.maxInFlight = max(th.maxInFlight, th.inFlight)
		th.arrivals = append(th.arrivals, time.Now())
		th.requests = append(th.requests, r.Method+" "+r.URL.Path+" "+r.Header.Get("Range"))
		th.mu.Unlock()
		defer func() {
			th.mu.Lock()
			th.inFlight--
			th.mu.Unlock()
		}()
		if ua := r.Header.Get("User-Agent"); ua != fetch.UserAgent("") {
			http.Error(w, "unexpected User-Agent "+ua, http.StatusTeapot)
			return
		}
		h(w, r)
	}))
	t.Cleanup(th.Close)
	return th
}

// seen returns the requests the host got so far.
func (h *testHost) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.requests)
}

// requirePolite asserts that the host never saw more than concurrency requests at once, nor
// more than perSecond requests in any one second. Upper bounds only: a loaded machine makes a
// check slower, never faster. The rate's slack is two requests: a request's arrival lags the
// token that started it by its latency, and when an early token's request lags more than a
// later one's, more of them fit in one second at the server than the client started.
func (h *testHost) requirePolite(t testing.TB, concurrency int, perSecond float64) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	require.LessOrEqual(t, h.maxInFlight, concurrency, "%s: requests in flight at once", h.URL)
	limit := int(math.Ceil(perSecond)) + 2
	arrivals := slices.Clone(h.arrivals)
	slices.SortFunc(arrivals, func(a, b time.Time) int { return a.Compare(b) })
	for i, start := range arrivals {
		n := 0
		for _, a := range arrivals[i:] {
			if a.Sub(start) >= time.Second {
				break
			}
			n++
		}
		require.LessOrEqual(t, n, limit, "%s: requests in the second from %s", h.URL, start.Format(time.StampMilli))
	}
}

// refusedURL returns a URL on a loopback port nothing listens on.
func refusedURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr + "/data.csv"
}

// newHeaderDrip starts a raw TCP server that answers every connection with a status line and
// then one header byte every 50 ms, for as long as the client stays: it never finishes its
// headers. It returns its URL.
func newHeaderDrip(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				if _, err := conn.Write([]byte("HTTP/1.1 200 OK\r\nX-Drip: ")); err != nil {
					return
				}
				for {
					time.Sleep(50 * time.Millisecond)
					if _, err := conn.Write([]byte("a")); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/slow"
}
