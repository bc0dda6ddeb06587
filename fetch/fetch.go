package fetch

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/cenkalti/backoff/v5"
)

// ErrTooManyRedirects is the cause of an Error for a GET redirected more than MaxRedirects
// times (a redirect loop, usually).
var ErrTooManyRedirects = errors.New("too many redirects")

// Error is a source that could not be downloaded: the URL, the HTTP status when the
// server answered (0 otherwise), how many times it was tried, and the cause.
type Error struct {
	Method     string // "" is GET; POST for Post
	URL        string
	StatusCode int
	PageTitle  string // the <title> of an HTML error page, when the server sent one
	// Page is the start (at most 64 KiB) of the body of a non-2xx answer, for a caller that
	// reads an error document there (an OGC service's ExceptionReport, say); nil otherwise.
	Page     []byte
	Attempts int // tries made; more than 1 when the failure was retried
	Err      error
}

func (e *Error) Error() string {
	method := cmp.Or(e.Method, http.MethodGet)
	msg := fmt.Sprintf("%s %s: %v", method, e.URL, e.Err)
	if e.StatusCode != 0 {
		msg = fmt.Sprintf("%s %s: HTTP %d %s", method, e.URL, e.StatusCode, http.StatusText(e.StatusCode))
		if e.PageTitle != "" {
			msg += fmt.Sprintf(" (error page %q)", e.PageTitle)
		}
	}
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (gave up after %d attempts)", e.Attempts)
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// ErrTooLarge is the cause of an Error for a body over MaxBytes.
var ErrTooLarge = errors.New("document larger than the size cap")

// DefaultAccept is the Accept header of a Config without Accept: JSON first (a data.json), then
// anything.
const DefaultAccept = "application/json, */*;q=0.5"

// maxRetryAfter caps the wait a server may ask for with Retry-After.
const maxRetryAfter = 2 * time.Minute

// Validators are the cache validators of a response (RFC 9110 §8.8): its ETag and
// Last-Modified header values, verbatim; empty when the server sent none.
type Validators struct {
	ETag         string
	LastModified string
}

// IsZero reports whether there is no validator.
func (v Validators) IsZero() bool { return v.ETag == "" && v.LastModified == "" }

// Document is the outcome of a successful GET: the body in a temporary file positioned at its
// start (the caller closes it; the file has no name on disk, see spool), or NotModified (File
// nil) when the server answered 304 to a conditional GET.
type Document struct {
	File        *os.File
	NotModified bool
	Validators  Validators // of the response; on a 304, those that were sent unless it gave new ones
	ContentType string     // the Content-Type header, verbatim
}

// Close closes the document's file, if any, which frees it.
func (d *Document) Close() {
	if d.File != nil {
		d.File.Close()
	}
}

// Get downloads url into a temporary file and returns it positioned at its start; the caller
// closes it (the file has no name on disk, see spool). It is GetDocument without validators.
func Get(ctx context.Context, c Config, url string) (*os.File, error) {
	d, err := GetDocument(ctx, c, url, Validators{})
	if err != nil {
		return nil, err
	}
	return d.File, nil
}

// GetDocument GETs url. When since has validators the GET is conditional (If-None-Match,
// If-Modified-Since, RFC 9110 §13.1) and a 304 returns a NotModified document. Network errors,
// timeouts, 429 and 5xx are retried with jittered exponential backoff (c.Attempts, c.Backoff up
// to c.MaxBackoff, within c.RetryBudget), honouring a Retry-After header (at most 2 minutes);
// any other non-2xx status fails at once. A body that is itself gzip (a .gz file) is
// decompressed. At most c.MaxPerHost GETs to one host run at a time. Every failure is an
// *Error; an HTML error page's title is part of it. c should come from WithDefaults (a
// configuration without a Client is completed here, with a per-host limit of its own). c.Accept
// is the Accept header (DefaultAccept when empty); c.AuthHeader is sent as its doc says (an
// invalid one fails at once, wrapping ErrAuthHeader).
func GetDocument(ctx context.Context, c Config, url string, since Validators) (*Document, error) {
	return do(ctx, c, &request{url: url, since: since})
}

// Post POSTs body (of media type contentType, e.g. "application/xml") to url and returns the
// answer as Get does: in a temporary file positioned at its start, which the caller closes. It
// follows GetDocument's rules (retries of network errors, timeouts, 429 and 5xx, the size cap,
// the per-host limit, the SSRF guard, the auth header); its failures are an *Error whose Method
// is POST. A POST is retried as GetDocument is: callers send only requests that change nothing
// (an OGC CSW GetRecords query, say).
func Post(ctx context.Context, c Config, url, contentType string, body []byte) (*os.File, error) {
	d, err := do(ctx, c, &request{url: url, method: http.MethodPost, contentType: contentType, body: body})
	if err != nil {
		return nil, err
	}
	return d.File, nil
}

// request is one HTTP request of GetDocument or Post.
type request struct {
	url         string
	since       Validators
	method      string // "" is GET
	contentType string
	body        []byte
}

// do makes r with GetDocument's retries and rules.
func do(ctx context.Context, c Config, r *request) (*Document, error) {
	url := r.url
	if c.Client == nil {
		c = c.WithDefaults()
	}
	if c.AuthHeader != nil {
		h := *c.AuthHeader
		if err := h.Check(); err != nil {
			return nil, &Error{Method: r.method, URL: url, Err: err}
		}
		if h.Host == "" {
			host, err := SourceHost(url)
			if err != nil {
				return nil, &Error{Method: r.method, URL: url, Err: err}
			}
			h.Host = host
		}
		c.Client = withAuth(c.Client, h)
	}
	waits := newWaits(c)
	attempts := 0
	d, err := backoff.Retry(ctx, func() (*Document, error) {
		attempts++
		d, retry, err := fetchOnce(ctx, c, r)
		switch {
		case err == nil:
			return d, nil
		case retry < 0:
			return nil, backoff.Permanent(err)
		}
		waits.asked = retry
		return nil, err
	}, backoff.WithBackOff(waits), backoff.WithMaxTries(uint(max(c.Attempts, 1))),
		backoff.WithMaxElapsedTime(c.RetryBudget))
	if err == nil {
		return d, nil
	}
	var perm *backoff.PermanentError
	if errors.As(err, &perm) { // Retry leaves it wrapped when the last try allowed failed for good
		err = perm.Err
	}
	var ferr *Error
	if !errors.As(err, &ferr) { // ctx ended: Retry returns its cause
		return nil, &Error{Method: r.method, URL: url, Attempts: attempts, Err: ctx.Err()}
	}
	ferr.Attempts = attempts
	return nil, err
}

// serverBackOff is the wait between two tries: the jittered exponential backoff, or, once, the
// wait the server asked for (asked, from Retry-After), which replaces that try's backoff
// without resetting it: the doubling goes on from where it was.
type serverBackOff struct {
	exp   *backoff.ExponentialBackOff
	asked time.Duration
}

// newWaits returns the waits of c: from c.Backoff, doubling up to c.MaxBackoff, each jittered
// to 50–150% of its value (which spreads many jobs' retries).
func newWaits(c Config) *serverBackOff {
	return &serverBackOff{exp: &backoff.ExponentialBackOff{InitialInterval: c.Backoff,
		RandomizationFactor: 0.5, Multiplier: 2, MaxInterval: c.MaxBackoff}}
}

func (b *serverBackOff) NextBackOff() time.Duration {
	next := b.exp.NextBackOff()
	if b.asked > 0 {
		next, b.asked = b.asked, 0
	}
	return next
}

func (b *serverBackOff) Reset() { b.exp.Reset(); b.asked = 0 }

// retryAfter reads a Retry-After header (seconds or an HTTP date); 0 when absent or unreadable.
func retryAfter(h http.Header) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	d := time.Duration(0)
	if secs, err := strconv.Atoi(v); err == nil {
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = time.Until(t)
	}
	return min(max(d, 0), maxRetryAfter)
}

// fetchOnce makes one request (a GET unless r says otherwise). retry is negative when the
// failure is final, 0 to retry after the backoff, or the wait the server asked for.
func fetchOnce(ctx context.Context, c Config, r *request) (d *Document, retry time.Duration, err error) {
	const final = -1
	url, since := r.url, r.since
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, cmp.Or(r.method, http.MethodGet), url, body)
	if err != nil {
		return nil, final, &Error{Method: r.method, URL: url, Err: err}
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	req.Header.Set("User-Agent", c.UserAgent)
	req.Header.Set("Accept", cmp.Or(c.Accept, DefaultAccept))
	if since.ETag != "" {
		req.Header.Set("If-None-Match", since.ETag)
	}
	if since.LastModified != "" {
		req.Header.Set("If-Modified-Since", since.LastModified)
	}
	if c.guardHosts {
		if err := refuseHost(ctx, req.URL.Hostname()); err != nil {
			if errors.Is(err, ErrPrivateAddress) {
				return nil, final, &Error{Method: r.method, URL: url, Err: err}
			}
			return nil, 0, &Error{Method: r.method, URL: url, Err: err} // name resolution: retry
		}
	}
	release, err := c.hosts.acquire(ctx, req.URL.Host)
	if err != nil {
		return nil, final, &Error{Method: r.method, URL: url, Err: err}
	}
	defer release()
	start, status, size := time.Now(), 0, int64(0)
	defer func() { c.Metrics.observe(start, status, size) }()
	resp, err := c.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrPrivateAddress) || errors.Is(err, ErrTooManyRedirects) {
			return nil, final, &Error{Method: r.method, URL: url, Err: err}
		}
		return nil, 0, &Error{Method: r.method, URL: url, Err: err}
	}
	defer resp.Body.Close()
	status = resp.StatusCode
	got := Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	if resp.StatusCode == http.StatusNotModified && !since.IsZero() {
		if got.IsZero() {
			got = since
		}
		return &Document{NotModified: true, Validators: got}, 0, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		page, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		ferr := &Error{Method: r.method, URL: url, StatusCode: resp.StatusCode, PageTitle: htmlTitle(page), Page: page}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			return nil, retryAfter(resp.Header), ferr
		}
		return nil, final, ferr
	}
	f, err := download(resp.Body, c.MaxBytes)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, final, &Error{Method: r.method, URL: url, Err: err}
		}
		return nil, 0, &Error{Method: r.method, URL: url, Err: err}
	}
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	return &Document{File: f, Validators: got, ContentType: resp.Header.Get("Content-Type")}, 0, nil
}

// download copies body, decompressed when it is gzip (magic bytes 1F 8B), into a temporary file
// positioned at its start; more than maxBytes (after decompression) is ErrTooLarge.
func download(body io.Reader, maxBytes int64) (*os.File, error) {
	br := bufio.NewReader(body)
	var src io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("read gzip body: %w", err)
		}
		defer zr.Close()
		src = zr
	}
	f, err := spool("harvester-fetch-*")
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(f, io.LimitReader(src, maxBytes+1))
	if err == nil && n > maxBytes {
		err = fmt.Errorf("%w of %d bytes", ErrTooLarge, maxBytes)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// spool returns a new temporary file (os.CreateTemp in the system's temporary directory, name
// after pattern) whose name is removed at once: it is freed when closed or when the process
// ends, however it ends (kill -9 included), so no download is left behind. Where the system
// refuses to remove an open file's name (Windows), the name stays and Close does not remove it.
func spool(pattern string) (*os.File, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name())
	return f, nil
}
