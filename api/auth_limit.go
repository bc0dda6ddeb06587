package api

import (
	"cmp"
	"fmt"
	"net/http"
	"net/netip"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"
)

// AuthLimitConfig configures an AuthLimiter. Zero fields take the documented defaults.
type AuthLimitConfig struct {
	// Burst is how many wrong API keys a client may send before it is refused. Default 10.
	Burst int
	// Every is how often, once the burst is spent, a client earns one more try (a token bucket,
	// golang.org/x/time/rate). Default 6 s: 10 tries a minute, against thousands a second
	// without a limit.
	Every time.Duration
	// Clients is how many clients' allowances are kept; past that the least recently seen one
	// is forgotten (and starts afresh). It bounds the memory to about 200 bytes a client.
	// Default 10,000.
	Clients int
	// TrustedProxies are the reverse proxies in front of the server: a request whose TCP peer
	// is in one of these prefixes has its client read from X-Forwarded-For (ClientOf). Nil:
	// every client is its TCP peer, so that behind a proxy every client counts as the proxy.
	TrustedProxies []netip.Prefix
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// WithDefaults returns c with zero fields set to their defaults.
func (c AuthLimitConfig) WithDefaults() AuthLimitConfig {
	c.Burst = cmp.Or(c.Burst, 10)
	c.Every = cmp.Or(c.Every, 6*time.Second)
	c.Clients = cmp.Or(c.Clients, 10_000)
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// AuthLimiter limits, per client, how fast wrong API keys may be tried: at the API
// (X-API-Key, Authorization: Bearer) and at the web UI's sign-in, which guess the same key and
// so share one limiter. A client is the request's remote IP address (an IPv6 address's /64
// network, which one host commonly holds whole; ClientKey), or behind one of
// AuthLimitConfig.TrustedProxies the address that proxy read it from (X-Forwarded-For,
// ClientOf). Each client has its own allowance: one client's wrong keys never slow another.
// Safe for concurrent use.
type AuthLimiter struct {
	cfg     AuthLimitConfig
	mu      sync.Mutex // makes a client's check and count one step
	clients *lru.Cache[netip.Prefix, *rate.Limiter]
}

// NewAuthLimiter returns a limiter with c's allowances; c's zero fields take the defaults.
func NewAuthLimiter(c AuthLimitConfig) *AuthLimiter {
	c = c.WithDefaults()
	clients, err := lru.New[netip.Prefix, *rate.Limiter](max(c.Clients, 1))
	if err != nil { // only for a size < 1
		panic(err)
	}
	return &AuthLimiter{cfg: c, clients: clients}
}

// Check runs right, the comparison of r's key, unless r's client has used its allowance of
// wrong keys: then it returns how long until the client may try again (for Retry-After), and
// right is not run. A wrong key (right returns false) takes one try from the allowance; a
// right one takes nothing. The check and the count are one step, so that requests sent at once
// get no more tries between them; right must be quick (it runs under the limiter's lock).
func (l *AuthLimiter) Check(r *http.Request, right func() bool) (ok bool, wait time.Duration) {
	client := ClientOf(r, l.cfg.TrustedProxies)
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, found := l.clients.Get(client)
	if !found {
		lim = rate.NewLimiter(rate.Every(l.cfg.Every), l.cfg.Burst)
		l.clients.Add(client, lim)
	}
	now := l.cfg.Now()
	if tokens := lim.TokensAt(now); tokens < 1 {
		return false, time.Duration((1 - tokens) * float64(l.cfg.Every))
	}
	if right() {
		return true, 0
	}
	lim.AllowN(now, 1)
	return false, 0
}

// RetryAfterSeconds is wait in whole seconds, rounded up (at least 1): a Retry-After value.
func RetryAfterSeconds(wait time.Duration) int {
	return max(1, int((wait+time.Second-1)/time.Second))
}

// tooManyKeys is the 429 of a client that has used its allowance of wrong keys.
func tooManyKeys(wait time.Duration) *apiError {
	n := RetryAfterSeconds(wait)
	return &apiError{Status: http.StatusTooManyRequests, RetryAfter: n,
		Message: fmt.Sprintf("too many wrong API keys from your address: try again in %d s", n)}
}
