package extract

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FetchConfig configures the fetch client. Zero fields take the documented defaults.
type FetchConfig struct {
	// Timeout bounds one whole GET, body included. Default 10 minutes.
	Timeout time.Duration
	// MaxBytes caps a downloaded document, in bytes. Default 1 GiB.
	MaxBytes int64
	// Attempts is how many times a GET is tried on a network error, 429 or 5xx. Default 3.
	Attempts int
	// Backoff is the wait before the second attempt; it doubles after each try. Default 500 ms.
	Backoff time.Duration
	// UserAgent is sent with every request. Default "Harvester/0.1".
	UserAgent string
	// Client is the HTTP client to use. Default: a new http.Client with Timeout that refuses to
	// connect to private addresses unless AllowPrivate.
	Client *http.Client
	// AllowPrivate lets sources live on loopback, private (RFC 1918, fc00::/7), link-local
	// (169.254.0.0/16, where cloud metadata services answer) and unspecified addresses. Off by
	// default: a harvest source is a URL anyone with the API key can set, and fetching it must
	// not reach into the harvester's own network (SSRF). Tests and intranet installs turn it on.
	AllowPrivate bool
}

// WithDefaults returns c with zero fields set to their defaults.
func (c FetchConfig) WithDefaults() FetchConfig {
	c.Timeout = cmp.Or(c.Timeout, 10*time.Minute)
	c.MaxBytes = cmp.Or(c.MaxBytes, 1<<30)
	c.Attempts = cmp.Or(c.Attempts, 3)
	c.Backoff = cmp.Or(c.Backoff, 500*time.Millisecond)
	c.UserAgent = cmp.Or(c.UserAgent, "Harvester/0.1 (open-data metadata harvester)")
	if c.Client == nil {
		dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		if !c.AllowPrivate {
			dialer.Control = refusePrivate
		}
		transport := http.DefaultTransport.(*http.Transport).Clone()
		transport.DialContext = dialer.DialContext
		c.Client = &http.Client{Timeout: c.Timeout, Transport: transport}
	}
	return c
}

// ErrPrivateAddress is the cause of a FetchError for a source on a private address.
var ErrPrivateAddress = errors.New("private address refused")

// refusePrivate is a net.Dialer Control hook: it runs after name resolution, on the address
// actually dialled, so neither a DNS name nor a redirect can lead to a private address.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return fmt.Errorf("%w: cannot read address %q", ErrPrivateAddress, address)
	}
	kind := ""
	switch {
	case ip.IsLoopback():
		kind = "a loopback"
	case ip.IsPrivate():
		kind = "a private"
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		kind = "a link-local"
	case ip.IsUnspecified():
		kind = "an unspecified"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s is %s address; sources there are refused unless allowed in configuration",
		ErrPrivateAddress, ip, kind)
}

// FetchError is a source that could not be downloaded: the URL, the HTTP status when the
// server answered (0 otherwise) and the cause.
type FetchError struct {
	URL        string
	StatusCode int
	PageTitle  string // the <title> of an HTML error page, when the server sent one
	Err        error
}

func (e *FetchError) Error() string {
	if e.StatusCode != 0 {
		msg := fmt.Sprintf("GET %s: HTTP %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
		if e.PageTitle != "" {
			msg += fmt.Sprintf(" (error page %q)", e.PageTitle)
		}
		return msg
	}
	return fmt.Sprintf("GET %s: %v", e.URL, e.Err)
}

func (e *FetchError) Unwrap() error { return e.Err }

// errTooLarge is the cause of a FetchError for a body over MaxBytes.
var errTooLarge = errors.New("document larger than the size cap")

// maxRetryAfter caps the wait a server may ask for with Retry-After.
const maxRetryAfter = 2 * time.Minute

// Fetch downloads url into a temporary file and returns it positioned at its start; the caller
// closes and removes it. Network errors, 429 and 5xx are retried with jittered exponential
// backoff, honouring a Retry-After header (at most 2 minutes); any other non-2xx status fails
// at once. Every failure is a *FetchError; an HTML error page's title is part of it.
func Fetch(ctx context.Context, c FetchConfig, url string) (*os.File, error) {
	wait := c.Backoff
	var err error
	for attempt := 1; ; attempt++ {
		var f *os.File
		var retryAfter time.Duration
		f, retryAfter, err = fetchOnce(ctx, c, url)
		if err == nil {
			return f, nil
		}
		if retryAfter < 0 || attempt >= c.Attempts {
			return nil, err
		}
		// Jitter spreads the retries of many jobs hitting one server: 50% to 150% of the wait.
		pause := time.Duration(float64(wait) * (0.5 + rand.Float64()))
		if retryAfter > 0 {
			pause = retryAfter
		}
		select {
		case <-ctx.Done():
			return nil, &FetchError{URL: url, Err: ctx.Err()}
		case <-time.After(pause):
		}
		wait *= 2
	}
}

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

// fetchOnce makes one GET. retry is negative when the failure is final, 0 to retry after the
// backoff, or the wait the server asked for.
func fetchOnce(ctx context.Context, c FetchConfig, url string) (f *os.File, retry time.Duration, err error) {
	const final = -1
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, final, &FetchError{URL: url, Err: err}
	}
	req.Header.Set("User-Agent", c.UserAgent)
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	resp, err := c.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrPrivateAddress) {
			return nil, final, &FetchError{URL: url, Err: err}
		}
		return nil, 0, &FetchError{URL: url, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		page, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		ferr := &FetchError{URL: url, StatusCode: resp.StatusCode, PageTitle: htmlTitle(page)}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			return nil, retryAfter(resp.Header), ferr
		}
		return nil, final, ferr
	}
	f, err = os.CreateTemp("", "harvester-fetch-*")
	if err != nil {
		return nil, final, fmt.Errorf("fetch %s: %w", url, err)
	}
	n, err := io.Copy(f, io.LimitReader(resp.Body, c.MaxBytes+1))
	if err == nil && n > c.MaxBytes {
		err = fmt.Errorf("%w of %d bytes", errTooLarge, c.MaxBytes)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		if errors.Is(err, errTooLarge) {
			return nil, final, &FetchError{URL: url, Err: err}
		}
		return nil, 0, &FetchError{URL: url, Err: err}
	}
	return f, 0, nil
}

var titleRe = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// htmlTitle returns the title of an HTML page (whitespace collapsed, at most 200 bytes), or "".
func htmlTitle(page []byte) string {
	m := titleRe.FindSubmatch(page)
	if m == nil {
		return ""
	}
	t := strings.Join(strings.Fields(html.UnescapeString(string(m[1]))), " ")
	if len(t) > 200 {
		t = t[:200]
	}
	return t
}
