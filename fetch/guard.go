package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// ErrPrivateAddress is the cause of an *Error for a source on a private address.
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

// RefuseAddress is the SSRF guard of every fetch (Config.AllowPrivate off) for a client built
// outside this package, such as the link checker's (stages/check): it returns an error wrapping
// ErrPrivateAddress when ip is a loopback, private, link-local, unspecified or other IANA
// special-purpose address (the list at Config.AllowPrivate), nil for a public unicast address.
// Call it on the address actually dialled (a net.Dialer's Control hook), after name resolution.
func RefuseAddress(ip netip.Addr) error { return refuseAddr(ip) }

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

// resolveTimeout bounds CheckSourceAddress's name lookup: the caller (an API request) waits.
const resolveTimeout = 5 * time.Second

// CheckSourceAddress applies the fetches' SSRF rule (Config.AllowPrivate off) to a source
// URL before any job runs, so that a harvest source on a loopback, private or link-local
// address can be refused when it is created rather than when it first runs: it resolves the
// URL's host and returns an error wrapping ErrPrivateAddress, with the same text a fetch would
// give, when any of its addresses is one a fetch refuses. It returns nil for a host that does
// not resolve (now): the fetch decides at run time, on the address it dials, and that check
// stays the one that counts (DNS may answer differently then).
func CheckSourceAddress(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	host := u.Hostname()
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else {
		ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil
		}
		for _, a := range addrs {
			ips = append(ips, a.IP)
		}
	}
	for _, ip := range ips {
		if err := refusePrivate("tcp", net.JoinHostPort(ip.String(), "0"), nil); err != nil {
			return err
		}
	}
	return nil
}
