package pipeline

import (
	"cmp"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/netutil"
)

// HTTPConfig bounds the HTTP servers at Config.Addr and Config.OpsAddr (each on its own), so
// that slow or idle clients cannot hold their connections (and the process's file descriptors)
// for ever, nor one client all of them. Zero fields take the documented defaults; negative
// ones are refused.
type HTTPConfig struct {
	// ReadHeaderTimeout is the longest a client may take to send a request's header. Default 10 s.
	ReadHeaderTimeout time.Duration
	// ReadTimeout is the longest a client may take to send a whole request, body included
	// (http.Server.ReadTimeout): a body still arriving then is cut and its connection closed.
	// Default 1 min (the largest form, 10 MiB, at 175 KB/s).
	ReadTimeout time.Duration
	// WriteTimeout is the longest from the end of a request's header to the end of its
	// answer (http.Server.WriteTimeout). Default 2 min. The streamed record errors CSV and
	// POST /api/v1/validate of a URL extend their own deadline (http.ResponseController).
	WriteTimeout time.Duration
	// IdleTimeout is how long a kept-alive connection waits for its next request. Default 2 min.
	IdleTimeout time.Duration
	// MaxHeaderBytes caps a request's header. Default 64 KiB.
	MaxHeaderBytes int
	// MaxConns caps the connections open at once (netutil.LimitListener); more wait in the
	// kernel's accept queue until one closes. Default 256.
	MaxConns int
	// MaxConnsPerClient caps the connections one client (api.ClientKey of the TCP peer: an
	// IPv4 address, an IPv6 /64) holds open at once, within MaxConns: a connection past it is
	// answered 429 (Retry-After: 1) and closed at once, before its request is read, and
	// counted in harvester_http_connections_refused_total. Connections from TrustedProxies
	// are not capped: a proxy carries many clients, and is where they are capped. Default 32
	// (a browser opens at most 6 to a host).
	MaxConnsPerClient int
	// TrustedProxies are the reverse proxies in front of the server (CIDR prefixes; a single
	// address is a /32 or /128): the client of a request from one of them is read from
	// X-Forwarded-For by the API key limiter (api.AuthLimitConfig.TrustedProxies), and their
	// connections are not held to MaxConnsPerClient. Nil: every client is its TCP peer.
	TrustedProxies []netip.Prefix
}

// WithDefaults returns c with zero fields set to their defaults.
func (c HTTPConfig) WithDefaults() HTTPConfig {
	c.ReadHeaderTimeout = cmp.Or(c.ReadHeaderTimeout, 10*time.Second)
	c.ReadTimeout = cmp.Or(c.ReadTimeout, time.Minute)
	c.WriteTimeout = cmp.Or(c.WriteTimeout, 2*time.Minute)
	c.IdleTimeout = cmp.Or(c.IdleTimeout, 2*time.Minute)
	c.MaxHeaderBytes = cmp.Or(c.MaxHeaderBytes, 64<<10)
	c.MaxConns = cmp.Or(c.MaxConns, 256)
	c.MaxConnsPerClient = cmp.Or(c.MaxConnsPerClient, 32)
	return c
}

func (c HTTPConfig) validate() error {
	for _, f := range []struct {
		name string
		bad  bool
	}{
		{"ReadHeaderTimeout", c.ReadHeaderTimeout < 0}, {"ReadTimeout", c.ReadTimeout < 0},
		{"WriteTimeout", c.WriteTimeout < 0}, {"IdleTimeout", c.IdleTimeout < 0},
		{"MaxHeaderBytes", c.MaxHeaderBytes < 0}, {"MaxConns", c.MaxConns < 0},
		{"MaxConnsPerClient", c.MaxConnsPerClient < 0},
	} {
		if f.bad {
			return fmt.Errorf("%w: HTTP.%s must not be negative", ErrConfig, f.name)
		}
	}
	return nil
}

// listen opens addr for h: a listener of at most c.MaxConns connections at once and
// c.MaxConnsPerClient of one client (refusals counted in refused), and the server with c's
// timeouts. c must have its defaults.
func (c HTTPConfig) listen(addr string, h http.Handler, refused prometheus.Counter) (net.Listener, *http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: c.ReadHeaderTimeout, ReadTimeout: c.ReadTimeout,
		WriteTimeout: c.WriteTimeout, IdleTimeout: c.IdleTimeout, MaxHeaderBytes: c.MaxHeaderBytes}
	// The per-client cap inside the shared one: a connection it refuses takes no shared place.
	perClient := newClientListener(ln, c.MaxConnsPerClient, c.TrustedProxies, refused)
	return netutil.LimitListener(perClient, c.MaxConns), srv, nil
}
