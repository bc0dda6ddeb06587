package check

import (
	"cmp"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/fetch"
)

// Config configures a Checker. Zero fields take the documented defaults.
type Config struct {
	// HostConcurrency caps the requests in flight to one host (name and port) at a time, over
	// every call of the Checker, and over every process that checks links once each has told
	// its Checker how many they are (Checker.SetShare). Default 2 (--link-host-concurrency).
	HostConcurrency int
	// HostRate caps the requests started to one host, per second (a token bucket of one:
	// requests are spaced 1/HostRate apart), divided like HostConcurrency by SetShare.
	// Default 2 (--link-host-rate).
	HostRate float64
	// Timeout bounds one request: connecting, TLS, waiting for the headers and reading the
	// first bytes of a GET's body. Default 20 s.
	Timeout time.Duration
	// MaxRedirects is how many redirects a check follows; one more is TooManyRedirects.
	// Default 10.
	MaxRedirects int
	// Retries is how many times a request answered 429 or 503 with a Retry-After is tried
	// again. Default 2; -1 never retries.
	Retries int
	// MaxRetryAfter is the longest Retry-After waited for; a longer one is not retried and the
	// 429 or 503 is the result. Default 1 minute.
	MaxRetryAfter time.Duration
	// Parallel caps the checks in flight over all hosts and calls. Default 512.
	Parallel int
	// ExcludeHosts are host names never requested, with their subdomains: "example.org"
	// excludes example.org and data.example.org (case-insensitive, no port). A check of such a
	// URL, or redirected to one, is Excluded.
	ExcludeHosts []string
	// UserAgent is sent with every request. Default fetch.UserAgent(""), the User-Agent of
	// every fetch; the operator's --user-agent sets both.
	UserAgent string
	// AllowPrivate lets checks reach loopback, private, link-local and the other addresses
	// that fetch.Config.AllowPrivate opens (--allow-private-sources). Off, a URL or redirect
	// there is refused before connecting (AddressRefused, RedirectRefused).
	AllowPrivate bool

	// guard, when not nil, replaces the SSRF guard: tests allow loopback (their servers) while
	// refusing every other private address.
	guard func(netip.Addr) error
}

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	c.HostConcurrency = cmp.Or(c.HostConcurrency, 2)
	c.HostRate = cmp.Or(c.HostRate, 2)
	c.Timeout = cmp.Or(c.Timeout, 20*time.Second)
	c.MaxRedirects = cmp.Or(c.MaxRedirects, 10)
	c.Retries = cmp.Or(c.Retries, 2)
	c.MaxRetryAfter = cmp.Or(c.MaxRetryAfter, time.Minute)
	c.Parallel = cmp.Or(c.Parallel, 512)
	c.UserAgent = cmp.Or(c.UserAgent, fetch.UserAgent(""))
	if c.guard == nil && !c.AllowPrivate {
		c.guard = fetch.RefuseAddress
	}
	return c
}

// validate checks a configuration WithDefaults completed; its errors name the field.
func (c Config) validate() error {
	switch {
	case c.HostConcurrency < 1:
		return fmt.Errorf("check config: HostConcurrency %d: want at least 1", c.HostConcurrency)
	case !(c.HostRate > 0):
		return fmt.Errorf("check config: HostRate %v: want more than 0 requests a second", c.HostRate)
	case c.Timeout < 0:
		return fmt.Errorf("check config: Timeout %v: want a positive duration", c.Timeout)
	case c.MaxRedirects < 0:
		return fmt.Errorf("check config: MaxRedirects %d: want 0 or more", c.MaxRedirects)
	case c.Retries < -1:
		return fmt.Errorf("check config: Retries %d: want -1 (never) or more", c.Retries)
	case c.MaxRetryAfter < 0:
		return fmt.Errorf("check config: MaxRetryAfter %v: want a positive duration", c.MaxRetryAfter)
	case c.Parallel < 1:
		return fmt.Errorf("check config: Parallel %d: want at least 1", c.Parallel)
	}
	for _, h := range c.ExcludeHosts {
		if h == "" || strings.ContainsAny(h, "/: ") {
			return fmt.Errorf("check config: ExcludeHosts %q: want a host name (no scheme, port or path)", h)
		}
	}
	return nil
}

// excluded reports whether hostname is in ExcludeHosts or a subdomain of one.
func (c Config) excluded(hostname string) bool {
	hostname = strings.TrimSuffix(strings.ToLower(hostname), ".")
	for _, h := range c.ExcludeHosts {
		h = strings.TrimSuffix(strings.ToLower(h), ".")
		if hostname == h || strings.HasSuffix(hostname, "."+h) {
			return true
		}
	}
	return false
}
