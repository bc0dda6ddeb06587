package api

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAuthLimit: after AuthLimitConfig.Burst wrong keys a client is refused with 429 and
// Retry-After, even with the right key, until it has earned a try again; another client's
// right key still works, and right keys never count.
func TestAuthLimit(t *testing.T) {
	t.Parallel()
	now := time.Now()
	limiter := NewAuthLimiter(AuthLimitConfig{Burst: 3, Every: time.Minute, Now: func() time.Time { return now }})
	b := setup(t, func(_ *Config, d *Deps) { d.AuthLimiter = limiter })
	send := func(remote, key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/organizations", strings.NewReader(`{}`))
		req.RemoteAddr = remote
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		b.api.ServeHTTP(rec, req)
		return rec
	}
	const attacker, other = "203.0.113.7:40000", "198.51.100.2:40000"
	for range 5 {
		require.NotEqual(t, http.StatusUnauthorized, send(attacker, testKey).Code, "right keys do not count")
	}
	for i := range 3 {
		require.Equal(t, http.StatusUnauthorized, send(attacker, "wrong").Code, "wrong key %d", i+1)
	}
	for _, key := range []string{"wrong", testKey} {
		rec := send(attacker, key)
		require.Equal(t, http.StatusTooManyRequests, rec.Code, "key %q: %s", key, rec.Body)
		require.Equal(t, "60", rec.Header().Get("Retry-After"))
		require.Contains(t, rec.Body.String(), "too many wrong API keys from your address: try again in 60 s")
	}
	require.Equal(t, http.StatusTooManyRequests, send("203.0.113.7:40001", testKey).Code, "another port of the same address")
	require.NotEqual(t, http.StatusTooManyRequests, send(other, testKey).Code, "another client is not refused")
	require.NotEqual(t, http.StatusUnauthorized, send(other, testKey).Code)

	now = now.Add(time.Minute) // one try earned
	require.NotEqual(t, http.StatusTooManyRequests, send(attacker, testKey).Code)
	require.Equal(t, http.StatusUnauthorized, send(attacker, "wrong").Code)
	require.Equal(t, http.StatusTooManyRequests, send(attacker, "wrong").Code)
}

// TestAuthLimitClients: an IPv6 client is its /64 network, and the limiter forgets the least
// recently seen client past AuthLimitConfig.Clients, so its memory is bounded.
func TestAuthLimitClients(t *testing.T) {
	t.Parallel()
	l := NewAuthLimiter(AuthLimitConfig{Burst: 1, Every: time.Hour, Clients: 2})
	try := func(remote string) bool {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = remote
		_, wait := l.Check(req, func() bool { return false }) // a wrong key
		return wait == 0
	}
	require.True(t, try("[2001:db8:1:2::1]:1"))
	require.False(t, try("[2001:db8:1:2::ffff]:1"), "the same /64")
	require.True(t, try("[2001:db8:1:3::1]:1"), "another /64")
	require.True(t, try("192.0.2.1:1"))
	require.Equal(t, 2, l.clients.Len())
	require.True(t, try("[2001:db8:1:2::1]:1"), "forgotten past 2 clients: starts afresh")
}

// TestAuthLimitBehindProxy: behind a trusted proxy each client has its own allowance, read
// from X-Forwarded-For: one client's wrong keys do not lock out another, the limited one gets
// 429 whatever key it sends, and it cannot pass for another by writing that one's address in
// the header. Wrong keys sent straight to the server by a peer that is not a proxy count against
// that peer, whatever its header says.
func TestAuthLimitBehindProxy(t *testing.T) {
	t.Parallel()
	limiter := NewAuthLimiter(AuthLimitConfig{Burst: 3, Every: time.Hour,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	b := setup(t, func(_ *Config, d *Deps) { d.AuthLimiter = limiter })
	send := func(peer, xff, key string) int {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/organizations", strings.NewReader(`{}`))
		req.RemoteAddr = peer
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		b.api.ServeHTTP(rec, req)
		return rec.Code
	}
	const proxy, attacker, operator = "10.0.0.1:40000", "203.0.113.7", "198.51.100.2"
	for i := range 3 {
		require.Equal(t, http.StatusUnauthorized, send(proxy, attacker, "wrong"), "wrong key %d", i+1)
	}
	require.Equal(t, http.StatusTooManyRequests, send(proxy, attacker, "wrong"))
	require.Equal(t, http.StatusTooManyRequests, send(proxy, attacker, testKey), "the right key from a limited client")
	require.Equal(t, http.StatusTooManyRequests, send(proxy, operator+", "+attacker, testKey), "a spoofed address left of its own")
	require.Equal(t, http.StatusUnprocessableEntity, send(proxy, operator, testKey), "the operator is not locked out")

	for i := range 3 {
		require.Equal(t, http.StatusUnauthorized, send("192.0.2.9:1", operator, "wrong"), "wrong key %d", i+1)
	}
	require.Equal(t, http.StatusTooManyRequests, send("192.0.2.9:1", operator, testKey), "not a proxy: its header is not read")
	require.Equal(t, http.StatusUnprocessableEntity, send(proxy, operator, testKey), "the operator is still not locked out")
}
