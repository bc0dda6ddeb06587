package check

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// waitFor polls cond until it holds; the minute only stops a hung test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "waiting for %s", what)
		time.Sleep(10 * time.Millisecond)
	}
}

// byURL indexes results by URL.
func byURL(results []Result) map[string]Result {
	m := map[string]Result{}
	for _, r := range results {
		m[r.URL] = r
	}
	return m
}

// TestCheckSite is the acceptance site of issue 38: each kind of answer gets its Result, with
// the default per-host limits (2 at a time, 2 a second) held on every host.
func TestCheckSite(t *testing.T) {
	t.Parallel()
	other := newTestHost(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	})
	dripGone := make(chan struct{}, 1)
	handler := siteHandler(other.URL, dripGone)
	// Three hosts share the handler, so that the test does not queue every request behind one
	// host's 2 a second: site for plain answers, redirects, and slow for the timeouts.
	site, redirects, slow := newTestHost(t, handler), newTestHost(t, handler), newTestHost(t, handler)
	var busyCalls atomic.Int32
	var busyAt [2]time.Time
	throttled := newTestHost(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/busy":
			n := busyCalls.Add(1)
			if n <= 2 {
				busyAt[n-1] = time.Now()
			}
			if n == 1 {
				w.Header().Set("Retry-After", "3")
				w.WriteHeader(http.StatusTooManyRequests)
			}
		case "/busy-long":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	})
	down := newTestHost(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	excluded := newTestHost(t, func(http.ResponseWriter, *http.Request) {})
	tlsHost := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(tlsHost.Close)

	s, rd, sl := site.URL, redirects.URL, slow.URL
	excludedURL := strings.Replace(excluded.URL, "127.0.0.1", "localhost", 1) + "/data.csv"
	refused, headerDrip := refusedURL(t), newHeaderDrip(t)
	urls := []string{s + "/ok", s + "/missing", s + "/gone", s + "/error", rd + "/chain/3", rd + "/loop",
		rd + "/private", rd + "/metadata", rd + "/to-ftp", s + "/nohead", sl + "/drip", sl + "/late-body",
		sl + "/stall", throttled.URL + "/busy", throttled.URL + "/busy-long", down.URL + "/down",
		refused, headerDrip, tlsHost.URL + "/x", excludedURL, "http://nonexistent.invalid/data.csv",
		"ftp://ftp.example.org/data.csv", "mailto:open-data@example.org", "/relative/data.csv", "::garbage",
		"http:///no-host", "http://10.0.0.1/data.csv", "  " + s + "/ok  "}
	c := newTestChecker(t, Config{Timeout: 5 * time.Second, ExcludeHosts: []string{"localhost"}})
	results, err := c.Check(context.Background(), urls)
	require.NoError(t, err)
	require.Len(t, results, len(urls)-1, "the padded /ok is /ok")
	got := byURL(results)

	for u, w := range siteWants(s, rd, sl, other.URL, throttled.URL, down.URL, refused, headerDrip, tlsHost.URL, excludedURL) {
		r, ok := got[u]
		require.True(t, ok, "a result for %s", u)
		require.Equal(t, w.status, r.Status, "%s: status (%+v)", u, r)
		require.Equal(t, w.class, r.Error, "%s: error class (%+v)", u, r)
		require.Equal(t, w.ok, r.OK, "%s: OK (%+v)", u, r)
		if w.finalURL == "" {
			w.finalURL = u
		}
		require.Equal(t, w.finalURL, r.FinalURL, "%s: final URL", u)
		require.Equal(t, w.redirects, r.Redirects, "%s: redirects", u)
		require.False(t, r.CheckedAt.IsZero(), "%s: checked at", u)
		require.Equal(t, r.Error != "", r.Detail != "", "%s: a detail with every error (%q)", u, r.Detail)
	}
	require.Equal(t, "text/csv", got[s+"/ok"].ContentType)
	require.Equal(t, int64(1234), got[s+"/ok"].ContentLength, "a HEAD's Content-Length")
	require.Equal(t, "application/zip", got[s+"/nohead"].ContentType)
	require.Equal(t, int64(5000), got[s+"/nohead"].ContentLength, "a 206's Content-Range total")
	require.Equal(t, "application/json", got[rd+"/chain/3"].ContentType, "the final answer's")
	require.Equal(t, int64(-1), got[sl+"/stall"].ContentLength)

	requireHeadFirst(t, append(append(site.seen(), redirects.seen()...), slow.seen()...), dripGone)

	// 429 with Retry-After: 3 was retried after the pause, and the host slowed down; 3600 s is
	// over MaxRetryAfter, not retried; a 503 is retried Retries times.
	require.Equal(t, int32(2), busyCalls.Load())
	require.GreaterOrEqual(t, busyAt[1].Sub(busyAt[0]), 3*time.Second, "the retry waited for Retry-After")
	require.Less(t, c.hosts.limit(hostKey(mustParse(t, throttled.URL))), rate.Limit(2), "the host's rate slowed down")
	require.Equal(t, 1, strings.Count(strings.Join(throttled.seen(), "\n"), "/busy-long"))
	require.Len(t, down.seen(), 3, "a 503 with Retry-After: 0, tried 1 + Retries times")

	require.Empty(t, excluded.seen(), "an excluded host is never requested")
	for _, h := range []*testHost{site, redirects, slow, other, throttled, down} {
		h.requirePolite(t, 2, 2)
	}
}

// requireHeadFirst: the site saw HEAD first and a one-byte GET only after 403, 404, 405, 501;
// /ok (twice in the batch) once; /loop's first answer and 10 redirects; and the dripping body
// was dropped after its first bytes.
func requireHeadFirst(t *testing.T, seen []string, dripGone <-chan struct{}) {
	t.Helper()
	// HEAD first; GET with a one-byte range only after 403, 404, 405, 501.
	require.Contains(t, seen, "HEAD /missing ")
	require.Contains(t, seen, "GET /missing bytes=0-0")
	require.Contains(t, seen, "GET /nohead bytes=0-0")
	require.Contains(t, seen, "GET /late-body bytes=0-0")
	for _, r := range seen {
		require.NotContains(t, []string{"GET /ok bytes=0-0", "GET /gone bytes=0-0", "GET /error bytes=0-0"}, r)
		require.True(t, strings.HasPrefix(r, "HEAD ") || strings.HasSuffix(r, " bytes=0-0"), r)
	}
	require.Equal(t, 1, strings.Count(strings.Join(seen, "\n"), "HEAD /ok "), "/ok twice in the batch, checked once")
	require.Equal(t, 11, strings.Count(strings.Join(seen, "\n"), "HEAD /loop "), "the first answer and 10 redirects")

	// The dripping body was dropped after its first bytes: the server saw the client go.
	select {
	case <-dripGone:
	case <-time.After(time.Minute):
		t.Fatal("the dripping body is still being read")
	}
}

// siteHandler answers the acceptance site's paths: /ok, /missing, /gone, /error, /chain/N (N
// redirects, then otherURL/final.json), /loop, /private, /metadata, /to-ftp, /nohead (405 on
// HEAD), /drip (a body that drips; dripGone gets a value when the client goes), /late-body and
// /stall.
func siteHandler(otherURL string, dripGone chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		switch {
		case path == "/ok":
			w.Header().Set("Content-Type", "text/csv")
			w.Header().Set("Content-Length", "1234")
		case path == "/missing":
			http.NotFound(w, r)
		case path == "/gone":
			w.WriteHeader(http.StatusGone)
		case path == "/error":
			w.WriteHeader(http.StatusInternalServerError)
		case strings.HasPrefix(path, "/chain/"):
			var n int
			fmt.Sscanf(path, "/chain/%d", &n)
			if n == 0 {
				http.Redirect(w, r, otherURL+"/final.json", http.StatusMovedPermanently)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/chain/%d", n-1), http.StatusFound)
		case path == "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case path == "/private":
			http.Redirect(w, r, "http://10.0.0.1/secret", http.StatusFound)
		case path == "/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusTemporaryRedirect)
		case path == "/to-ftp":
			http.Redirect(w, r, "ftp://ftp.example.org/data.csv", http.StatusFound)
		case path == "/nohead" && r.Method == http.MethodHead:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case path == "/nohead":
			w.Header().Set("Content-Type", "application/zip")
			w.Header().Set("Content-Range", "bytes 0-0/5000")
			w.WriteHeader(http.StatusPartialContent)
			_, _ = io.WriteString(w, "P")
		case path == "/drip" && r.Method == http.MethodHead:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case path == "/drip": // a body that drips forever, a byte every 50 ms
			w.WriteHeader(http.StatusOK)
			for {
				_, _ = io.WriteString(w, "x")
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					dripGone <- struct{}{}
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		case path == "/late-body" && r.Method == http.MethodHead:
			w.WriteHeader(http.StatusNotImplemented)
		case path == "/late-body": // headers, then a body that never starts
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case path == "/stall": // no answer at all
			<-r.Context().Done()
		default:
			http.NotFound(w, r)
		}
	}
}

// siteWant is what TestCheckSite expects of one URL's result.
type siteWant struct {
	status    int
	class     ErrorClass
	ok        bool
	finalURL  string
	redirects int
}

// siteWants are TestCheckSite's expectations by URL: s, rd and sl are the plain, redirecting
// and slow hosts' URLs, the others the URLs of the other hosts and cases.
func siteWants(s, rd, sl, other, throttled, down, refused, headerDrip, tlsHost, excludedURL string) map[string]siteWant {
	return map[string]siteWant{
		s + "/ok":                             {status: 200, ok: true},
		s + "/missing":                        {status: 404},
		s + "/gone":                           {status: 410},
		s + "/error":                          {status: 500},
		rd + "/chain/3":                       {status: 200, ok: true, finalURL: other + "/final.json", redirects: 4},
		rd + "/loop":                          {status: 302, class: TooManyRedirects, redirects: 10},
		rd + "/private":                       {status: 302, class: RedirectRefused, finalURL: "http://10.0.0.1/secret", redirects: 1},
		rd + "/metadata":                      {status: 307, class: RedirectRefused, finalURL: "http://169.254.169.254/latest/meta-data/", redirects: 1},
		rd + "/to-ftp":                        {status: 302, class: NotCheckable, finalURL: "ftp://ftp.example.org/data.csv", redirects: 1},
		s + "/nohead":                         {status: 206, ok: true},
		sl + "/drip":                          {status: 200, ok: true},
		sl + "/late-body":                     {class: Timeout},
		sl + "/stall":                         {class: Timeout},
		throttled + "/busy":                   {status: 200, ok: true},
		throttled + "/busy-long":              {status: 429},
		down + "/down":                        {status: 503},
		refused:                               {class: Refused},
		headerDrip:                            {class: Timeout},
		tlsHost + "/x":                        {class: TLS},
		excludedURL:                           {class: Excluded},
		"http://nonexistent.invalid/data.csv": {class: DNS},
		"ftp://ftp.example.org/data.csv":      {class: NotCheckable},
		"mailto:open-data@example.org":        {class: NotCheckable},
		"/relative/data.csv":                  {class: NotCheckable},
		"::garbage":                           {class: NotCheckable},
		"http:///no-host":                     {class: NotCheckable},
		"http://10.0.0.1/data.csv":            {class: AddressRefused},
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}
