package extract

import (
	"context"
	"net"
	"net/url"
	"time"
)

// resolveTimeout bounds CheckSourceAddress's name lookup: the caller (an API request) waits.
const resolveTimeout = 5 * time.Second

// CheckSourceAddress applies the fetches' SSRF rule (FetchConfig.AllowPrivate off) to a source
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
