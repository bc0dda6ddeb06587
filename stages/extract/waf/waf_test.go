package waf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
)

// wafTree is a web server of hand-written listings; it counts the requests per path.
type wafTree struct {
	srv   *httptest.Server
	mu    sync.Mutex
	pages map[string]string // path → listing; "500" answers 500
	hits  map[string]int
}

func newWAFTree(t *testing.T, pages map[string]string) *wafTree {
	w := &wafTree{pages: pages, hits: make(map[string]int)}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.hits[r.URL.Path]++
		page, ok := w.pages[r.URL.Path]
		w.mu.Unlock()
		switch {
		case !ok:
			http.NotFound(rw, r)
		case page == "500":
			http.Error(rw, "boom", http.StatusInternalServerError)
		default:
			rw.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(rw, page)
		}
	}))
	require.True(t, strings.HasPrefix(w.srv.URL, "http://127.0.0.1:"), w.srv.URL)
	t.Cleanup(w.srv.Close)
	return w
}

func (w *wafTree) hitCount() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]int, len(w.hits))
	for k, v := range w.hits {
		out[k] = v
	}
	return out
}

func wafPage(links ...string) string {
	var b strings.Builder
	b.WriteString("<html><body><h1>Index</h1><pre>")
	for i, l := range links {
		fmt.Fprintf(&b, "<a href=%q>%s</a>   2024-01-%02d 10:00  1K\n", l, l, i+1)
	}
	b.WriteString("</pre></body></html>")
	return b.String()
}

// The tree under /waf/: folders a/ → a/deep/ → a/deep/deeper/ (3 deep), a cycle between the
// siblings a/ and b/, links back to the root, to parents, above the root and to another host.
func wafTreePages() map[string]string {
	return map[string]string{
		"/waf/": wafPage("?C=N;O=D", "../", "/waf/", "root.xml", "UPPER.XML", "a/", "b/",
			"https://other.example/waf/x.xml", "http://other.example/waf/c/", "/outside/", "/outside/o.xml",
			"readme.html"),
		"/waf/a/":              wafPage("../", "/waf/", "a1.xml", "../b/", "deep/", "../root.xml"),
		"/waf/b/":              wafPage("../", "b1.xml", "../a/", "/waf/a/a1.xml", "/waf/a/deep/"),
		"/waf/a/deep/":         wafPage("../", "d1.xml", "deeper/", "../../b/"),
		"/waf/a/deep/deeper/":  wafPage("../../../", "/waf/", "dd.xml", "../../"),
		"/outside/":            wafPage("escaped.xml"),
		"/waf/readme.html":     "<p>not a listing</p>",
		"/waf/a/deep/deeper/x": "500",
	}
}

func crawl(t *testing.T, fc fetch.Config, cfg WAFConfig, root string) ([]WAFFile, error) {
	t.Helper()
	var files []WAFFile
	err := CrawlWAF(context.Background(), fc, cfg, root, func(f WAFFile) error {
		files = append(files, f)
		return nil
	})
	return files, err
}

func fileNames(base string, files []WAFFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, strings.TrimPrefix(f.URL, base))
	}
	return out
}

// crawlFetch is the fetch configuration of the crawl tests: quick retries, test servers allowed.
var crawlFetch = fetch.Config{Backoff: time.Millisecond, Timeout: 10 * time.Second, AllowPrivate: true}

// TestCrawlWAF walks a tree: what is reported, in which order, and which listings are fetched.
func TestCrawlWAF(t *testing.T) {
	t.Parallel()
	t.Run("tree", func(t *testing.T) {
		t.Parallel()
		w := newWAFTree(t, wafTreePages())
		files, err := crawl(t, crawlFetch, WAFConfig{}, w.srv.URL+"/waf/")
		require.NoError(t, err)
		// Breadth-first, each file once.
		require.Equal(t, []string{"/waf/root.xml", "/waf/UPPER.XML", "/waf/a/a1.xml", "/waf/b/b1.xml",
			"/waf/a/deep/d1.xml", "/waf/a/deep/deeper/dd.xml"}, fileNames(w.srv.URL, files))
		require.Equal(t, utc(2024, 1, 4, 10, 0), files[0].Modified)
		require.Equal(t, utc(2024, 1, 3, 10, 0), files[2].Modified)
		// Each listing fetched once; nothing above the root, no files, no other host.
		require.Equal(t, map[string]int{"/waf/": 1, "/waf/a/": 1, "/waf/b/": 1, "/waf/a/deep/": 1,
			"/waf/a/deep/deeper/": 1}, w.hitCount())
	})

	t.Run("root without slash, local dates", func(t *testing.T) {
		t.Parallel()
		w := newWAFTree(t, wafTreePages())
		files, err := crawl(t, crawlFetch, WAFConfig{Location: time.FixedZone("AKST", -9*3600)}, w.srv.URL+"/waf")
		require.NoError(t, err)
		require.Len(t, files, 6)
		require.Equal(t, w.srv.URL+"/waf/root.xml", files[0].URL)
		require.Equal(t, utc(2024, 1, 4, 19, 0), files[0].Modified)
	})

	t.Run("rooted in a sub-folder", func(t *testing.T) {
		t.Parallel()
		w := newWAFTree(t, wafTreePages())
		files, err := crawl(t, crawlFetch, WAFConfig{}, w.srv.URL+"/waf/a/")
		require.NoError(t, err)
		// b/ and root.xml are above the root: never fetched, never reported.
		require.Equal(t, []string{"/waf/a/a1.xml", "/waf/a/deep/d1.xml", "/waf/a/deep/deeper/dd.xml"},
			fileNames(w.srv.URL, files))
		require.Equal(t, map[string]int{"/waf/a/": 1, "/waf/a/deep/": 1, "/waf/a/deep/deeper/": 1}, w.hitCount())
	})

	t.Run("depth cap", func(t *testing.T) {
		t.Parallel()
		w := newWAFTree(t, wafTreePages())
		files, err := crawl(t, crawlFetch, WAFConfig{MaxDepth: 1}, w.srv.URL+"/waf/")
		require.NoError(t, err)
		require.Equal(t, []string{"/waf/root.xml", "/waf/UPPER.XML", "/waf/a/a1.xml", "/waf/b/b1.xml"},
			fileNames(w.srv.URL, files))
		require.Equal(t, map[string]int{"/waf/": 1, "/waf/a/": 1, "/waf/b/": 1}, w.hitCount())

		w = newWAFTree(t, wafTreePages())
		files, err = crawl(t, crawlFetch, WAFConfig{MaxDepth: 2}, w.srv.URL+"/waf/")
		require.NoError(t, err)
		require.Len(t, files, 5)
		require.Zero(t, w.hitCount()["/waf/a/deep/deeper/"])
	})
}

// TestCrawlWAFFails: a limit passed or a listing that cannot be read fails the whole crawl.
func TestCrawlWAFFails(t *testing.T) {
	t.Parallel()
	t.Run("folder and file limits fail the crawl", func(t *testing.T) {
		t.Parallel()
		w := newWAFTree(t, wafTreePages())
		_, err := crawl(t, crawlFetch, WAFConfig{MaxFolders: 4}, w.srv.URL+"/waf/")
		require.ErrorIs(t, err, ErrWAFLimit)
		require.ErrorContains(t, err, "/waf/a/deep/deeper/")
		_, err = crawl(t, crawlFetch, WAFConfig{MaxFolders: 5}, w.srv.URL+"/waf/")
		require.NoError(t, err)

		_, err = crawl(t, crawlFetch, WAFConfig{MaxFiles: 5}, w.srv.URL+"/waf/")
		require.ErrorIs(t, err, ErrWAFLimit)
		require.ErrorContains(t, err, "dd.xml")
		_, err = crawl(t, crawlFetch, WAFConfig{MaxFiles: 6}, w.srv.URL+"/waf/")
		require.NoError(t, err)
	})

	t.Run("a failed sub-listing fails the crawl", func(t *testing.T) {
		t.Parallel()
		pages := wafTreePages()
		pages["/waf/a/deep/"] = "500"
		w := newWAFTree(t, pages)
		files, err := crawl(t, fetch.Config{Backoff: time.Millisecond, Attempts: 2, AllowPrivate: true}, WAFConfig{}, w.srv.URL+"/waf/")
		require.Error(t, err)
		var ferr *fetch.Error
		require.True(t, errors.As(err, &ferr), "%v", err)
		require.Equal(t, http.StatusInternalServerError, ferr.StatusCode)
		require.Equal(t, w.srv.URL+"/waf/a/deep/", ferr.URL)
		require.ErrorContains(t, err, w.srv.URL+"/waf/a/deep/: HTTP 500")
		require.Equal(t, 2, w.hitCount()["/waf/a/deep/"], "retried as Fetch does")
		require.Zero(t, w.hitCount()["/waf/a/deep/deeper/"], "the crawl stops")
		require.Len(t, files, 4, "files already reported; the error tells the caller the listing is incomplete")

		pages = wafTreePages()
		pages["/waf/b/"] = "" // 200 with an empty body: not an empty listing
		w = newWAFTree(t, pages)
		_, err = crawl(t, crawlFetch, WAFConfig{}, w.srv.URL+"/waf/")
		require.ErrorIs(t, err, errNotHTML)
		require.ErrorContains(t, err, w.srv.URL+"/waf/b/")

		delete(pages, "/waf/b/") // 404
		w = newWAFTree(t, pages)
		_, err = crawl(t, crawlFetch, WAFConfig{}, w.srv.URL+"/waf/")
		require.True(t, errors.As(err, &ferr))
		require.Equal(t, http.StatusNotFound, ferr.StatusCode)

		w = newWAFTree(t, map[string]string{"/waf/": "500"})
		_, err = crawl(t, fetch.Config{Backoff: time.Millisecond, Attempts: 1, AllowPrivate: true}, WAFConfig{}, w.srv.URL+"/waf/")
		require.ErrorContains(t, err, w.srv.URL+"/waf/: HTTP 500")
	})
}

// TestCrawlWAFStops: fn's error, a cancelled context and a bad root stop the crawl.
func TestCrawlWAFStops(t *testing.T) {
	t.Parallel()
	t.Run("fn's error stops the crawl", func(t *testing.T) {
		t.Parallel()
		w := newWAFTree(t, wafTreePages())
		stop := errors.New("stop")
		calls := 0
		err := CrawlWAF(context.Background(), crawlFetch, WAFConfig{}, w.srv.URL+"/waf/", func(f WAFFile) error {
			calls++
			if strings.HasSuffix(f.URL, "/a1.xml") {
				return stop
			}
			return nil
		})
		require.ErrorIs(t, err, stop)
		require.Equal(t, 3, calls)
		require.Zero(t, w.hitCount()["/waf/b/"])
	})

	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		w := newWAFTree(t, wafTreePages())
		ctx, cancel := context.WithCancel(context.Background())
		err := CrawlWAF(ctx, crawlFetch, WAFConfig{}, w.srv.URL+"/waf/", func(WAFFile) error {
			cancel()
			return nil
		})
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, 1, len(w.hitCount()))
	})

	t.Run("bad root", func(t *testing.T) {
		t.Parallel()
		for _, root := range []string{"", "waf/", "file:///waf/", "mailto:x@h.gov"} {
			_, err := crawl(t, crawlFetch, WAFConfig{}, root)
			require.Error(t, err, "root %q", root)
		}
	})
}

// An endless tree (every folder links to a deeper one, and to many siblings) is bounded by the
// depth cap and the visited set.
func TestCrawlWAFEndless(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		_, _ = io.WriteString(rw, wafPage("next/", "../", "../next/", "f.xml", "/waf/"))
	}))
	t.Cleanup(srv.Close)
	files, err := crawl(t, fetch.Config{AllowPrivate: true}, WAFConfig{MaxDepth: 5}, srv.URL+"/waf/")
	require.NoError(t, err)
	require.Len(t, files, 6)
	require.Equal(t, srv.URL+"/waf/next/next/next/next/next/f.xml", files[5].URL)
	require.Equal(t, 6, hits)
}
