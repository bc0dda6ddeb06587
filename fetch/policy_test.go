package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testFetchConfig allows the httptest servers and keeps retries quick.
func testFetchConfig() Config {
	return Config{Backoff: time.Millisecond, AllowPrivate: true}
}

// body reads and removes a fetched file.
func body(t *testing.T, f *os.File) string {
	t.Helper()
	defer os.Remove(f.Name())
	defer f.Close()
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	return string(b)
}

// A redirect chain within the cap is followed; one more redirect, or a loop, is a final error
// that names the cap.
func TestFetchRedirectCap(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		switch {
		case r.URL.Path == "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case r.URL.Path == "/doc":
			_, _ = io.WriteString(w, `{"dataset":[]}`)
		case strings.HasPrefix(r.URL.Path, "/hop/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hop/"))
			if n == 0 {
				http.Redirect(w, r, "/doc", http.StatusMovedPermanently)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	cfg := testFetchConfig()
	cfg.MaxRedirects = 3
	cfg = cfg.WithDefaults()

	f, err := Get(ctx, cfg, srv.URL+"/hop/2") // /hop/2 -> /hop/1 -> /hop/0 -> /doc: 3 redirects
	require.NoError(t, err)
	require.Equal(t, `{"dataset":[]}`, body(t, f))

	_, err = Get(ctx, cfg, srv.URL+"/hop/3")
	require.ErrorIs(t, err, ErrTooManyRedirects)
	require.ErrorContains(t, err, "more than 3 redirects")

	calls.Store(0)
	_, err = Get(ctx, cfg, srv.URL+"/loop")
	require.ErrorIs(t, err, ErrTooManyRedirects)
	var ferr *Error
	require.True(t, errors.As(err, &ferr))
	require.Equal(t, 1, ferr.Attempts, "a redirect loop is not retried")
	require.Equal(t, int32(4), calls.Load(), "the first request and 3 redirects")
}

// concurrencyServer counts the requests it is answering at once. Each request waits until the
// test lets it go (release), so requests overlap as much as the client allows.
type concurrencyServer struct {
	*httptest.Server
	mu       sync.Mutex
	inFlight int
	max      int
	arrived  chan struct{}
	release  chan struct{}
}

func newConcurrencyServer(t *testing.T) *concurrencyServer {
	s := &concurrencyServer{arrived: make(chan struct{}, 100), release: make(chan struct{}, 100)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.inFlight++
		s.max = max(s.max, s.inFlight)
		s.mu.Unlock()
		s.arrived <- struct{}{}
		select {
		case <-s.release:
		case <-r.Context().Done():
		}
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
		_, _ = io.WriteString(w, "{}")
	}))
	t.Cleanup(s.Close)
	return s
}

// fetchAll GETs urls concurrently; the server lets a request go only once `hold` requests are
// in flight (or every remaining one is), so a client without a limit gets them all in at once.
func (s *concurrencyServer) fetchAll(t *testing.T, cfg Config, hold int, urls []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make(chan error, len(urls))
	for _, u := range urls {
		go func() {
			f, err := Get(ctx, cfg, u)
			if err == nil {
				f.Close()
				os.Remove(f.Name())
			}
			errs <- err
		}()
	}
	arrived := 0
	for done := 0; done < len(urls); {
		if arrived-done < min(hold, len(urls)-done) {
			select {
			case <-s.arrived:
				arrived++
			case <-ctx.Done():
				t.Fatalf("only %d of %d requests arrived", arrived, len(urls))
			}
			continue
		}
		s.release <- struct{}{}
		require.NoError(t, <-errs)
		done++
	}
}

// At most MaxPerHost GETs to one host are in flight at once, across all callers sharing the
// configuration; another host has slots of its own.
func TestFetchPerHostLimit(t *testing.T) {
	t.Parallel()
	srv := newConcurrencyServer(t)
	urls := make([]string, 8)
	for i := range urls {
		urls[i] = fmt.Sprintf("%s/doc/%d", srv.URL, i)
	}
	cfg := testFetchConfig()
	cfg.MaxPerHost = 2
	cfg = cfg.WithDefaults()
	srv.fetchAll(t, cfg, 2, urls)
	require.Equal(t, 2, srv.max, "never more than MaxPerHost at once")

	// The same server under two host names: a slot each with MaxPerHost 1.
	cfg = testFetchConfig()
	cfg.MaxPerHost = 1
	cfg = cfg.WithDefaults()
	srv.max = 0
	other := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	srv.fetchAll(t, cfg, 2, []string{srv.URL + "/a", other + "/b"})
	require.Equal(t, 2, srv.max, "hosts are limited separately")

	// The check can see more: with a higher cap all requests run at once.
	cfg = testFetchConfig()
	cfg.MaxPerHost = 8
	cfg = cfg.WithDefaults()
	srv.max = 0
	srv.fetchAll(t, cfg, 8, urls)
	require.Equal(t, 8, srv.max)
}

// A conditional GET sends the validators; a 304 is a NotModified document with no file.
func TestFetchConditional(t *testing.T) {
	t.Parallel()
	const etag, lastModified = `"v7"`, "Wed, 01 Jan 2025 00:00:00 GMT"
	var sent http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent = r.Header.Clone()
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", lastModified)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = io.WriteString(w, `{"dataset":[]}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	cfg := testFetchConfig().WithDefaults()

	d, err := GetDocument(ctx, cfg, srv.URL, Validators{})
	require.NoError(t, err)
	require.False(t, d.NotModified)
	require.Equal(t, Validators{ETag: etag, LastModified: lastModified}, d.Validators)
	require.Empty(t, sent.Get("If-None-Match"))
	require.Empty(t, sent.Get("If-Modified-Since"))
	require.Equal(t, `{"dataset":[]}`, body(t, d.File))

	d, err = GetDocument(ctx, cfg, srv.URL, Validators{ETag: etag, LastModified: lastModified})
	require.NoError(t, err)
	require.True(t, d.NotModified)
	require.Nil(t, d.File)
	require.Equal(t, etag, sent.Get("If-None-Match"))
	require.Equal(t, lastModified, sent.Get("If-Modified-Since"))
	d.Close()

	d, err = GetDocument(ctx, cfg, srv.URL, Validators{ETag: `"v6"`})
	require.NoError(t, err)
	require.False(t, d.NotModified, "another version is downloaded")
	require.Equal(t, `{"dataset":[]}`, body(t, d.File))
}

// A gzip body is decompressed, whether the transport negotiated it (Content-Encoding) or the
// file itself is gzip; the size cap applies to the decompressed bytes.
func TestFetchGzip(t *testing.T) {
	t.Parallel()
	doc := `{"dataset":[` + strings.Repeat(`{"identifier":"x"},`, 100) + `{}]}`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = io.WriteString(zw, doc)
	require.NoError(t, zw.Close())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/encoded":
			require.Contains(t, r.Header.Get("Accept-Encoding"), "gzip")
			w.Header().Set("Content-Encoding", "gzip")
		case "/file.json.gz":
			w.Header().Set("Content-Type", "application/gzip")
		}
		_, _ = w.Write(gz.Bytes())
	}))
	defer srv.Close()
	ctx := context.Background()
	cfg := testFetchConfig().WithDefaults()
	for _, path := range []string{"/encoded", "/file.json.gz"} {
		f, err := Get(ctx, cfg, srv.URL+path)
		require.NoError(t, err, path)
		require.Equal(t, doc, body(t, f), path)
	}

	cfg = testFetchConfig()
	cfg.MaxBytes = int64(gz.Len()) + 10 // the compressed body fits, the document does not
	cfg = cfg.WithDefaults()
	_, err := Get(ctx, cfg, srv.URL+"/file.json.gz")
	require.ErrorIs(t, err, ErrTooLarge)
}

// A server that sends no headers within HeaderTimeout is a timeout, retried like a 5xx.
func TestFetchHeaderTimeout(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		<-r.Context().Done()
	}))
	defer srv.Close()
	cfg := testFetchConfig()
	cfg.HeaderTimeout = 20 * time.Millisecond
	cfg.Attempts = 2
	cfg = cfg.WithDefaults()
	_, err := Get(context.Background(), cfg, srv.URL)
	require.ErrorContains(t, err, "timeout awaiting response headers")
	require.ErrorContains(t, err, "gave up after 2 attempts")
	require.Equal(t, int32(2), calls.Load())
}

// The default policy makes many attempts, with waits doubling up to MaxBackoff; RetryBudget
// stops retries that would start too late, and the error says how many attempts were made.
func TestFetchRetryPolicy(t *testing.T) {
	t.Parallel()
	def := Config{}.WithDefaults()
	require.Equal(t, 10, def.Attempts)
	require.Equal(t, 10*time.Second, def.MaxBackoff)
	require.Equal(t, 2*time.Minute, def.RetryBudget)
	// The shortest the default waits can add up to (every jitter at 50%) is over 20 s: a 20 s
	// outage is ridden out. TestHarvestWAFThroughOutage shows it on a real job.
	least, wait := time.Duration(0), def.Backoff
	for range def.Attempts - 1 {
		least += wait / 2
		wait = min(wait*2, def.MaxBackoff)
	}
	require.Greater(t, least, 20*time.Second)

	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	cfg := testFetchConfig()
	cfg.RetryBudget = 1500 * time.Millisecond // room for one 1 s Retry-After wait, not two
	cfg = cfg.WithDefaults()
	_, err := Get(context.Background(), cfg, srv.URL)
	require.ErrorContains(t, err, "HTTP 429 Too Many Requests (gave up after 2 attempts)")
	require.Equal(t, int32(2), calls.Load())
}

// The waits between tries double from Backoff up to MaxBackoff, each jittered to 50–150%; a
// Retry-After wait replaces one of them without restarting the doubling.
func TestBackoffWaits(t *testing.T) {
	t.Parallel()
	c := Config{Backoff: 100 * time.Millisecond, MaxBackoff: 1600 * time.Millisecond}.WithDefaults()
	for range 50 { // the jitter is random: many draws
		b := newWaits(c)
		b.Reset()
		base := c.Backoff
		for i := range 8 {
			if i == 3 {
				b.asked = 7 * time.Second
				require.Equal(t, 7*time.Second, b.NextBackOff(), "the server's wait, exactly")
			} else {
				w := b.NextBackOff()
				require.GreaterOrEqual(t, w, base/2, "wait %d", i)
				require.LessOrEqual(t, w, base*3/2+time.Nanosecond, "wait %d", i)
			}
			base = min(base*2, c.MaxBackoff)
		}
	}
}
