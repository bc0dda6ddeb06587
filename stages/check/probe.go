package check

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/harvester-dev/harvester/fetch"
)

// headFallback are the answers to HEAD after which the check asks again with a GET: servers
// that forbid, do not route or do not implement HEAD while the resource is there for GET.
var headFallback = map[int]bool{http.StatusForbidden: true, http.StatusNotFound: true,
	http.StatusMethodNotAllowed: true, http.StatusNotImplemented: true}

// answer is what a check keeps of one HTTP response (its body already closed).
type answer struct {
	status        int
	contentType   string
	contentLength int64
	location      string
	retryAfter    string
}

// target parses raw and returns the URL to request, or false with the Result of a URL that is
// not requested (NotCheckable, Excluded). redirected says raw is a redirect's target.
func (c *Checker) target(raw string, redirected bool) (*url.URL, Result, bool) {
	res := Result{URL: raw, FinalURL: raw, ContentLength: -1}
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "":
		res.Error, res.Detail = NotCheckable, "not an http or https URL with a host"
		if err != nil {
			res.Detail = err.Error()
		}
	case c.cfg.excluded(u.Hostname()):
		res.Error, res.Detail = Excluded, fmt.Sprintf("host %s is excluded from link checks", u.Hostname())
	default:
		return u, Result{}, true
	}
	if !redirected {
		res.CheckedAt = time.Now().UTC()
	}
	return nil, res, false
}

// hostKey is the host a URL's request counts against: name and port, lowercase, without the
// scheme's default port.
func hostKey(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" || (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		return host
	}
	return net.JoinHostPort(host, port)
}

// check checks raw, following redirects. Its error is ctx's alone: every other failure is
// the Result's Error.
func (c *Checker) check(ctx context.Context, raw string) (res Result, err error) {
	u, res, ok := c.target(raw, false)
	if !ok {
		return res, nil
	}
	res = Result{URL: raw, FinalURL: raw, ContentLength: -1}
	defer func() { res.CheckedAt = time.Now().UTC() }()
	for {
		a, err := c.ask(ctx, u)
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			res.Error, res.Detail = classify(err, res.Redirects > 0), err.Error()
			return res, nil
		}
		res.Status, res.ContentType, res.ContentLength = a.status, a.contentType, a.contentLength
		if a.location == "" {
			res.OK = a.status >= 200 && a.status < 400
			return res, nil
		}
		if res.Redirects == c.cfg.MaxRedirects {
			res.Error = TooManyRedirects
			res.Detail = fmt.Sprintf("more than %d redirects (the cap)", c.cfg.MaxRedirects)
			return res, nil
		}
		next, err := u.Parse(a.location)
		res.Redirects++
		if err != nil {
			res.Error, res.Detail = Other, fmt.Sprintf("redirect to an unreadable Location %q: %v", a.location, err)
			return res, nil
		}
		res.FinalURL, res.ContentType, res.ContentLength = next.String(), "", -1
		if _, stop, ok := c.target(next.String(), true); !ok {
			res.Error, res.Detail = stop.Error, "redirect: "+stop.Detail
			return res, nil
		}
		u = next
	}
}

// ask asks u: HEAD, then GET when HEAD is answered with one of headFallback. A 429 or 503 with
// a Retry-After of at most MaxRetryAfter pauses u's host that long and asks again, Retries
// times at most. Every 429, and a 503 with a Retry-After, slows the host down (throttle).
func (c *Checker) ask(ctx context.Context, u *url.URL) (answer, error) {
	host := hostKey(u)
	for attempt := 0; ; attempt++ {
		a, err := c.request(ctx, http.MethodHead, u, host)
		if err == nil && headFallback[a.status] {
			a, err = c.request(ctx, http.MethodGet, u, host)
		}
		if err != nil || (a.status != http.StatusTooManyRequests && a.status != http.StatusServiceUnavailable) {
			return a, err
		}
		wait, ok := retryAfter(a.retryAfter, time.Now())
		if !ok && a.status == http.StatusServiceUnavailable {
			return a, nil // down, not asking us to slow down
		}
		if !ok || wait > c.cfg.MaxRetryAfter || attempt >= c.cfg.Retries {
			c.hosts.throttle(host, 0)
			return a, nil
		}
		c.hosts.throttle(host, wait)
	}
}

// request makes one request within Config.Timeout, in host's turn, and closes its body: of a
// GET's body, sent "Range: bytes=0-0", it reads the first bytes only.
func (c *Checker) request(ctx context.Context, method string, u *url.URL, host string) (answer, error) {
	release, err := c.hosts.acquire(ctx, host)
	if err != nil {
		return answer{}, err
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	req.Header.Set("Accept", "*/*")
	if method == http.MethodGet {
		req.Header.Set("Range", "bytes=0-0")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"),
		contentLength: contentLength(resp), retryAfter: resp.Header.Get("Retry-After")}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		a.location = resp.Header.Get("Location")
	}
	if method == http.MethodGet {
		// The body must start within the timeout; the rest is not read (Close drops it).
		var first [16]byte
		if _, err := io.ReadAtLeast(resp.Body, first[:], 1); err != nil && !errors.Is(err, io.EOF) {
			return answer{}, fmt.Errorf("read the body of HTTP %d: %w", resp.StatusCode, err)
		}
	}
	return a, nil
}

// contentLength is the size of resp's resource: the total of a 206's Content-Range, else the
// Content-Length (a HEAD's too); -1 when unknown.
func contentLength(resp *http.Response) int64 {
	if resp.StatusCode == http.StatusPartialContent {
		cr := resp.Header.Get("Content-Range") // "bytes 0-0/1234" (RFC 9110 §14.4)
		if _, total, ok := strings.Cut(cr, "/"); ok && strings.HasPrefix(cr, "bytes ") {
			if n, err := strconv.ParseInt(total, 10, 64); err == nil && n >= 0 {
				return n
			}
		}
		return -1
	}
	if resp.ContentLength >= 0 {
		return resp.ContentLength
	}
	return -1
}

// retryAfter reads a Retry-After value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) as a
// wait from now; false when it is absent or unreadable. A date in the past is no wait.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, 1<<32)) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// classify names the class of a failed request. redirected says it was a redirect's target.
func classify(err error, redirected bool) ErrorClass {
	var (
		dnsErr     *net.DNSError
		netErr     net.Error
		verifyErr  *tls.CertificateVerificationError
		recordErr  tls.RecordHeaderError
		alertErr   tls.AlertError
		unknownCA  x509.UnknownAuthorityError
		hostErr    x509.HostnameError
		invalidErr x509.CertificateInvalidError
	)
	switch {
	case errors.Is(err, fetch.ErrPrivateAddress) && redirected:
		return RedirectRefused
	case errors.Is(err, fetch.ErrPrivateAddress):
		return AddressRefused
	case errors.As(err, &dnsErr):
		return DNS
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused
	case errors.As(err, &verifyErr), errors.As(err, &recordErr), errors.As(err, &alertErr),
		errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &invalidErr):
		return TLS
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return Timeout
	}
	return Other
}
