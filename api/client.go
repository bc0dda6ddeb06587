package api

import (
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// ClientKey is the key a client is counted under, by the API key limiter and by the HTTP
// server's per-client connection cap: an IPv4 address as itself (a /32), an IPv6 address as its
// /64 network, which one host commonly holds whole. An IPv4-mapped IPv6 address counts as its
// IPv4 address; a zone is dropped. The zero Prefix for the zero Addr.
func ClientKey(addr netip.Addr) netip.Prefix {
	if !addr.IsValid() {
		return netip.Prefix{}
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is4() {
		return netip.PrefixFrom(addr, 32)
	}
	p, _ := addr.Prefix(64)
	return p
}

// Trusted reports whether addr is in one of the prefixes (an IPv4-mapped address counts as
// its IPv4 address).
func Trusted(trusted []netip.Prefix, addr netip.Addr) bool {
	addr = addr.Unmap().WithZone("")
	return slices.ContainsFunc(trusted, func(p netip.Prefix) bool { return p.Contains(addr) })
}

// ClientOf is the client of r, as ClientKey keys it. When r's TCP peer is one of the trusted
// reverse proxies, the client is read from X-Forwarded-For (all its header lines, in order, as
// one comma-separated list): the right-most address that is not itself a trusted proxy. The
// entries left of it are not read, since anyone may write them, and so is every entry of a
// request from a peer that is not trusted. An entry that is not an IP address (with or without
// a port, IPv6 with or without brackets) ends the walk: the hop right of it (a trusted proxy)
// is the client. When every entry is a trusted proxy, the left-most one is the client. A remote
// address that does not parse (not a TCP client) is the zero Prefix, one client of its own.
// RFC 7239's Forwarded header is not read.
func ClientOf(r *http.Request, trusted []netip.Prefix) netip.Prefix {
	peer, ok := remoteAddr(r.RemoteAddr)
	if !ok {
		return netip.Prefix{}
	}
	if len(trusted) == 0 || !Trusted(trusted, peer) {
		return ClientKey(peer)
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		addr, ok := hopAddr(strings.TrimSpace(hops[i])) // no header: one empty entry, the peer is the client
		if !ok {
			break
		}
		client = addr
		if !Trusted(trusted, addr) {
			break
		}
	}
	return ClientKey(client)
}

// remoteAddr is the IP address of an http.Request's RemoteAddr ("ip:port").
func remoteAddr(remote string) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	addr, err := netip.ParseAddr(host)
	return addr, err == nil
}

// hopAddr reads one X-Forwarded-For entry: 192.0.2.1, 192.0.2.1:4711, 2001:db8::1,
// [2001:db8::1] or [2001:db8::1]:4711.
func hopAddr(hop string) (netip.Addr, bool) {
	if addr, err := netip.ParseAddr(hop); err == nil {
		return addr, true
	}
	if ap, err := netip.ParseAddrPort(hop); err == nil {
		return ap.Addr(), true
	}
	if inner, ok := strings.CutPrefix(hop, "["); ok {
		if inner, ok = strings.CutSuffix(inner, "]"); ok {
			addr, err := netip.ParseAddr(inner)
			return addr, err == nil && addr.Is6()
		}
	}
	return netip.Addr{}, false
}
