package extract

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FetchConfig configures the fetch client. Zero fields take the documented defaults.
//
// The default retry policy rides out an agency server that is down (429, 5xx, timeouts) for
// about half a minute: up to 10 tries, waits doubling from 500 ms to at most 10 s with ±50%
// jitter, all within a 2-minute budget.
type FetchConfig struct {
	// ConnectTimeout bounds dialling a server (TCP connect; TLS gets its own 10 s). Default 30 s.
	ConnectTimeout time.Duration
	// HeaderTimeout bounds the wait for the response headers once the request is sent. Default
	// 1 minute.
	HeaderTimeout time.Duration
	// Timeout bounds one whole GET, body included. Default 10 minutes.
	Timeout time.Duration
	// MaxBytes caps a downloaded document after decompression, in bytes. Default 1 GiB.
	MaxBytes int64
	// Attempts is how many times a GET is tried on a network error, a timeout, 429 or 5xx.
	// Default 10; 1 means no retry.
	Attempts int
	// Backoff is the wait before the second attempt; it doubles after each try up to MaxBackoff.
	// Each wait is jittered to 50–150% of its value. Default 500 ms.
	Backoff time.Duration
	// MaxBackoff caps the doubling wait between two attempts. Default 10 s.
	MaxBackoff time.Duration
	// RetryBudget bounds the time from a GET's first try to the start of its last one: a retry
	// that would start later is not made. A Retry-After wait counts too. Default 2 minutes.
	RetryBudget time.Duration
	// MaxRedirects is how many redirects one GET follows; one more is an error naming the cap
	// (a redirect loop ends there). Default 10. Applies to the default Client only.
	MaxRedirects int
	// MaxPerHost caps the GETs in flight to one host (name and port) at a time, over every job
	// that shares this configuration (one process: WithDefaults makes the limiter, copies share
	// it). Waits between retries do not hold a slot. Default 4.
	MaxPerHost int
	// UserAgent is sent with every request. Default "Harvester/0.1 (open-data metadata harvester)".
	UserAgent string
	// Client is the HTTP client to use. Default: a new http.Client with Timeout, ConnectTimeout,
	// HeaderTimeout and MaxRedirects that refuses to connect to private addresses unless
	// AllowPrivate. Go's transport asks for gzip and decompresses it.
	Client *http.Client
	// AllowPrivate lets sources live on loopback, private (RFC 1918, fc00::/7), link-local
	// (169.254.0.0/16, where cloud metadata services answer) and unspecified addresses. Off by
	// default: a harvest source is a URL anyone with the API key can set, and fetching it must
	// not reach into the harvester's own network (SSRF). Tests and intranet installs turn it on.
	// The other IANA special-purpose ranges are refused too: shared address space
	// (100.64.0.0/10, where Alibaba Cloud's metadata service answers), benchmarking
	// (198.18.0.0/15), documentation, multicast and reserved blocks, and the IPv6 prefixes that
	// carry an IPv4 address (NAT64 64:ff9b::/96 and 64:ff9b:1::/48, Teredo, 6to4).
	AllowPrivate bool
	// Proxy is the HTTP proxy every GET goes through; nil (the default) connects directly. The
	// HTTP_PROXY, HTTPS_PROXY and NO_PROXY environment variables are ignored: through a proxy
	// the guard cannot see the address dialled, so a proxy is used only when configured here.
	// Through Proxy, the guard checks every address the request's host (and each redirect's)
	// resolves to before the request is sent; the proxy itself may be on a private address.
	Proxy *url.URL

	hosts      *hostLimiter // made by WithDefaults
	guardHosts bool         // the default Client goes through Proxy: check hosts before each request
}

// WithDefaults returns c with zero fields set to their defaults.
func (c FetchConfig) WithDefaults() FetchConfig {
	c.ConnectTimeout = cmp.Or(c.ConnectTimeout, 30*time.Second)
	c.HeaderTimeout = cmp.Or(c.HeaderTimeout, time.Minute)
	c.Timeout = cmp.Or(c.Timeout, 10*time.Minute)
	c.MaxBytes = cmp.Or(c.MaxBytes, 1<<30)
	c.Attempts = cmp.Or(c.Attempts, 10)
	c.Backoff = cmp.Or(c.Backoff, 500*time.Millisecond)
	c.MaxBackoff = cmp.Or(c.MaxBackoff, 10*time.Second)
	c.RetryBudget = cmp.Or(c.RetryBudget, 2*time.Minute)
	c.MaxRedirects = cmp.Or(c.MaxRedirects, 10)
	c.MaxPerHost = cmp.Or(c.MaxPerHost, 4)
	c.UserAgent = cmp.Or(c.UserAgent, "Harvester/0.1 (open-data metadata harvester)")
	if c.hosts == nil {
		c.hosts = newHostLimiter(c.MaxPerHost)
	}
	if c.Client == nil {
		dialer := &net.Dialer{Timeout: c.ConnectTimeout, KeepAlive: 30 * time.Second}
		if !c.AllowPrivate && c.Proxy == nil {
			dialer.Control = refusePrivate
		}
		transport := http.DefaultTransport.(*http.Transport).Clone()
		transport.Proxy = nil // never from the environment: see Proxy
		if c.Proxy != nil {
			transport.Proxy = http.ProxyURL(c.Proxy)
		}
		transport.DialContext = dialer.DialContext
		transport.ResponseHeaderTimeout = c.HeaderTimeout
		maxRedirects, guardHosts := c.MaxRedirects, !c.AllowPrivate && c.Proxy != nil
		c.Client = &http.Client{Timeout: c.Timeout, Transport: transport,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) > maxRedirects {
					return fmt.Errorf("%w: more than %d redirects (the cap)", ErrTooManyRedirects, maxRedirects)
				}
				if guardHosts {
					return refuseHost(req.Context(), req.URL.Hostname())
				}
				return nil
			}}
		c.guardHosts = guardHosts
	}
	return c
}

// ErrTooManyRedirects is the cause of a FetchError for a GET redirected more than MaxRedirects
// times (a redirect loop, usually).
var ErrTooManyRedirects = errors.New("too many redirects")

// ErrPrivateAddress is the cause of a FetchError for a source on a private address.
var ErrPrivateAddress = errors.New("private address refused")

// refusePrivate is a net.Dialer Control hook: it runs after name resolution, on the address
// actually dialled, so neither a DNS name nor a redirect can lead to a private address.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: cannot read address %q", ErrPrivateAddress, address)
	}
	return refuseAddr(ip)
}

// refuseAddr returns an error wrapping ErrPrivateAddress when ip is not a public unicast
// address (specialPurpose), nil otherwise.
func refuseAddr(ip netip.Addr) error {
	kind := specialPurpose(ip)
	if kind == "" {
		return nil
	}
	return fmt.Errorf("%w: %s is %s address; sources there are refused unless allowed in configuration "+
		"(--allow-private-sources, HARVESTER_ALLOW_PRIVATE_SOURCES=1)", ErrPrivateAddress, ip, kind)
}

// specialRanges are the IANA special-purpose address blocks (RFC 6890 and the registries at
// iana.org/assignments/iana-ipv4-special-registry and iana-ipv6-special-registry) that are
// not globally reachable, or that translate to an IPv4 address the dialler cannot see (NAT64,
// Teredo, 6to4 relays), plus multicast and the reserved 240.0.0.0/4.
var specialRanges = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), `a "this network"`},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT, RFC 6598; cloud metadata services answer there)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol assignment"},
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "a 6to4 relay anycast"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking (RFC 2544)"},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved"},
	{netip.MustParsePrefix("::/96"), "an IPv4-compatible (deprecated)"},
	{netip.MustParsePrefix("64:ff9b::/96"), "a NAT64 (RFC 6052)"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 (RFC 8215)"},
	{netip.MustParsePrefix("100::/64"), "a discard-only"},
	{netip.MustParsePrefix("2001::/32"), "a Teredo"},
	{netip.MustParsePrefix("2001:2::/48"), "a benchmarking"},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation"},
	{netip.MustParsePrefix("2002::/16"), "a 6to4"},
	{netip.MustParsePrefix("3fff::/20"), "a documentation"},
	{netip.MustParsePrefix("5f00::/16"), "a segment routing (SRv6)"},
	{netip.MustParsePrefix("fc00::/7"), "a private (unique local)"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local (deprecated)"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast"},
}

// specialPurpose names the kind of a non-public address ("a loopback", "a NAT64", …), or ""
// for a public unicast one. An IPv4-mapped IPv6 address is judged by its IPv4 address.
func specialPurpose(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	switch {
	case ip.IsLoopback():
		return "a loopback"
	case ip.IsUnspecified():
		return "an unspecified"
	}
	for _, r := range specialRanges {
		if r.prefix.Contains(ip) {
			return r.kind
		}
	}
	return ""
}

// refuseHost resolves host (a name or an IP literal) and returns an error wrapping
// ErrPrivateAddress when any of its addresses is refused by refuseAddr: the guard of a client
// that goes through a proxy, which dials only the proxy.
func refuseHost(ctx context.Context, host string) error {
	if ip, err := netip.ParseAddr(host); err == nil {
		return refuseAddr(ip)
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, ip := range ips {
		if err := refuseAddr(ip); err != nil {
			return fmt.Errorf("%s: %w", host, err)
		}
	}
	return nil
}

// FetchError is a source that could not be downloaded: the URL, the HTTP status when the
// server answered (0 otherwise), how many times it was tried, and the cause.
type FetchError struct {
	URL        string
	StatusCode int
	PageTitle  string // the <title> of an HTML error page, when the server sent one
	Attempts   int    // tries made; more than 1 when the failure was retried
	Err        error
}

func (e *FetchError) Error() string {
	msg := fmt.Sprintf("GET %s: %v", e.URL, e.Err)
	if e.StatusCode != 0 {
		msg = fmt.Sprintf("GET %s: HTTP %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
		if e.PageTitle != "" {
			msg += fmt.Sprintf(" (error page %q)", e.PageTitle)
		}
	}
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (gave up after %d attempts)", e.Attempts)
	}
	return msg
}

func (e *FetchError) Unwrap() error { return e.Err }

// errTooLarge is the cause of a FetchError for a body over MaxBytes.
var errTooLarge = errors.New("document larger than the size cap")

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
// start (the caller closes and removes it), or NotModified (File nil) when the server answered
// 304 to a conditional GET.
type Document struct {
	File        *os.File
	NotModified bool
	Validators  Validators // of the response; on a 304, those that were sent unless it gave new ones
	ContentType string     // the Content-Type header, verbatim
}

// Close closes and removes the document's file, if any.
func (d *Document) Close() {
	if d.File != nil {
		d.File.Close()
		os.Remove(d.File.Name())
	}
}

// Fetch downloads url into a temporary file and returns it positioned at its start; the caller
// closes and removes it. It is FetchDocument without validators.
func Fetch(ctx context.Context, c FetchConfig, url string) (*os.File, error) {
	d, err := FetchDocument(ctx, c, url, Validators{})
	if err != nil {
		return nil, err
	}
	return d.File, nil
}

// FetchDocument GETs url. When since has validators the GET is conditional (If-None-Match,
// If-Modified-Since, RFC 9110 §13.1) and a 304 returns a NotModified document. Network errors,
// timeouts, 429 and 5xx are retried with jittered exponential backoff (c.Attempts, c.Backoff up
// to c.MaxBackoff, within c.RetryBudget), honouring a Retry-After header (at most 2 minutes);
// any other non-2xx status fails at once. A body that is itself gzip (a .gz file) is
// decompressed. At most c.MaxPerHost GETs to one host run at a time. Every failure is a
// *FetchError; an HTML error page's title is part of it. c should come from WithDefaults (a
// configuration without a Client is completed here, with a per-host limit of its own).
func FetchDocument(ctx context.Context, c FetchConfig, url string, since Validators) (*Document, error) {
	if c.Client == nil {
		c = c.WithDefaults()
	}
	start := time.Now()
	wait := c.Backoff
	for attempt := 1; ; attempt++ {
		d, retryAfter, err := fetchOnce(ctx, c, url, since)
		if err == nil {
			return d, nil
		}
		pause := time.Duration(float64(wait) * (0.5 + rand.Float64())) // spreads many jobs' retries
		if retryAfter > 0 {
			pause = retryAfter
		}
		if retryAfter < 0 || attempt >= c.Attempts || time.Since(start)+pause > c.RetryBudget {
			return nil, gaveUp(err, attempt)
		}
		select {
		case <-ctx.Done():
			return nil, &FetchError{URL: url, Attempts: attempt, Err: ctx.Err()}
		case <-time.After(pause):
		}
		wait = min(wait*2, c.MaxBackoff)
	}
}

// gaveUp records the number of attempts on a fetch error.
func gaveUp(err error, attempts int) error {
	var ferr *FetchError
	if errors.As(err, &ferr) {
		ferr.Attempts = attempts
	}
	return err
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
func fetchOnce(ctx context.Context, c FetchConfig, url string, since Validators) (d *Document, retry time.Duration, err error) {
	const final = -1
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, final, &FetchError{URL: url, Err: err}
	}
	req.Header.Set("User-Agent", c.UserAgent)
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	if since.ETag != "" {
		req.Header.Set("If-None-Match", since.ETag)
	}
	if since.LastModified != "" {
		req.Header.Set("If-Modified-Since", since.LastModified)
	}
	if c.guardHosts {
		if err := refuseHost(ctx, req.URL.Hostname()); err != nil {
			if errors.Is(err, ErrPrivateAddress) {
				return nil, final, &FetchError{URL: url, Err: err}
			}
			return nil, 0, &FetchError{URL: url, Err: err} // name resolution: retry
		}
	}
	release, err := c.hosts.acquire(ctx, req.URL.Host)
	if err != nil {
		return nil, final, &FetchError{URL: url, Err: err}
	}
	defer release()
	resp, err := c.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrPrivateAddress) || errors.Is(err, ErrTooManyRedirects) {
			return nil, final, &FetchError{URL: url, Err: err}
		}
		return nil, 0, &FetchError{URL: url, Err: err}
	}
	defer resp.Body.Close()
	got := Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	if resp.StatusCode == http.StatusNotModified && !since.IsZero() {
		if got.IsZero() {
			got = since
		}
		return &Document{NotModified: true, Validators: got}, 0, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		page, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		ferr := &FetchError{URL: url, StatusCode: resp.StatusCode, PageTitle: htmlTitle(page)}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			return nil, retryAfter(resp.Header), ferr
		}
		return nil, final, ferr
	}
	f, err := download(resp.Body, c.MaxBytes)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return nil, final, &FetchError{URL: url, Err: err}
		}
		return nil, 0, &FetchError{URL: url, Err: err}
	}
	return &Document{File: f, Validators: got, ContentType: resp.Header.Get("Content-Type")}, 0, nil
}

// download copies body, decompressed when it is gzip (magic bytes 1F 8B), into a temporary file
// positioned at its start; more than maxBytes (after decompression) is errTooLarge.
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
	f, err := os.CreateTemp("", "harvester-fetch-*")
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(f, io.LimitReader(src, maxBytes+1))
	if err == nil && n > maxBytes {
		err = fmt.Errorf("%w of %d bytes", errTooLarge, maxBytes)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
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
