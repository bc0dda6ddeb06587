package api

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestClientOf: behind a trusted proxy the client is the right-most X-Forwarded-For address
// that is not itself a trusted proxy; what a client writes left of it, and the header of a peer
// that is not trusted, are not read.
func TestClientOf(t *testing.T) {
	t.Parallel()
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ffff::/48")}
	for _, c := range []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"a peer that is not trusted is the client", "203.0.113.7:1", []string{"198.51.100.2"}, "203.0.113.7/32"},
		{"no proxy trusted", "10.0.0.1:1", nil, "10.0.0.1/32"},
		{"a trusted peer without the header", "10.0.0.1:1", nil, "10.0.0.1/32"},
		{"one proxy", "10.0.0.1:1", []string{"198.51.100.2"}, "198.51.100.2/32"},
		{"what the client wrote left of its address is not read", "10.0.0.1:1", []string{"192.0.2.66, 198.51.100.2"}, "198.51.100.2/32"},
		{"two proxies", "10.0.0.1:1", []string{"192.0.2.66,198.51.100.2 , 10.0.0.9"}, "198.51.100.2/32"},
		{"header lines in order", "10.0.0.1:1", []string{"192.0.2.66", "198.51.100.2"}, "198.51.100.2/32"},
		{"with a port", "10.0.0.1:1", []string{"198.51.100.2:4711"}, "198.51.100.2/32"},
		{"IPv6 with brackets and port: its /64", "10.0.0.1:1", []string{"[2001:db8:1:2::7]:80"}, "2001:db8:1:2::/64"},
		{"IPv6 in brackets", "10.0.0.1:1", []string{"[2001:db8:1:2::7]"}, "2001:db8:1:2::/64"},
		{"an IPv6 proxy", "[2001:db8:ffff:1::1]:1", []string{"2001:db8:1:2::7"}, "2001:db8:1:2::/64"},
		{"an IPv4-mapped proxy", "[::ffff:10.0.0.1]:1", []string{"198.51.100.2"}, "198.51.100.2/32"},
		{"a mapped client counts as IPv4", "10.0.0.1:1", []string{"::ffff:198.51.100.2"}, "198.51.100.2/32"},
		{"not an address: the hop right of it", "10.0.0.1:1", []string{"198.51.100.2, unknown, 10.0.0.9"}, "10.0.0.9/32"},
		{"not an address at the right: the peer", "10.0.0.1:1", []string{"198.51.100.2, unknown"}, "10.0.0.1/32"},
		{"every hop trusted: the left-most", "10.0.0.1:1", []string{"10.0.0.5, 10.0.0.9"}, "10.0.0.5/32"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.peer
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		tr := trusted
		if c.name == "no proxy trusted" {
			tr = nil
			r.Header.Set("X-Forwarded-For", "198.51.100.2")
		}
		require.Equal(t, netip.MustParsePrefix(c.want), ClientOf(r, tr), c.name)
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "@"
	require.Equal(t, netip.Prefix{}, ClientOf(r, trusted), "not a TCP client")
}
