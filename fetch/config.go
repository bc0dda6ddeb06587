package fetch

import (
	"cmp"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"
)

// Config configures the fetch client. Zero fields take the documented defaults.
//
// The default retry policy rides out an agency server that is down (429, 5xx, timeouts) for
// about half a minute: up to 10 tries, waits doubling from 500 ms to at most 10 s with ±50%
// jitter, all within a 2-minute budget.
type Config struct {
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
	// UserAgent is sent with every request. Default UserAgent(""): "Harvester/<version>
	// (open-data metadata harvester)"; an operator's UserAgent(contactURL) names where to reach them.
	UserAgent string
	// Accept is the Accept header sent with every request (a source's configured media types,
	// e.g. "text/turtle" or "application/rdf+xml, text/turtle;q=0.8"). Empty sends
	// DefaultAccept.
	Accept string
	// AuthHeader, when not nil, is a secret header sent only to the source's own host, never
	// after a redirect to another host (AuthHeader's doc). Its value is never part of an error.
	AuthHeader *AuthHeader
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
	// Metrics counts the GET attempts (NewMetrics); nil counts nothing. Copies share it.
	Metrics *Metrics

	hosts      *hostLimiter // made by WithDefaults
	guardHosts bool         // the default Client goes through Proxy: check hosts before each request
}

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
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
	c.UserAgent = cmp.Or(c.UserAgent, UserAgent(""))
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
