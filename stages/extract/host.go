package extract

import (
	"net/url"
	"strings"
	"time"
)

// ClockSkew is how far a server's clock may be off from ours: a WAF listing's dates and a CSW
// record's dct:modified get it as a margin before they are compared with our clock.
const ClockSkew = 5 * time.Minute

// SameHost reports whether two URLs name one host: compared case-insensitively, ignoring the scheme's default port.
func SameHost(a, b *url.URL) bool {
	return CanonicalHost(a) == CanonicalHost(b)
}

// CanonicalHost is u's host in lower case without the scheme's default port, so that one file
// has one identifier however its links spell the host.
func CanonicalHost(u *url.URL) string {
	h := strings.ToLower(strings.TrimSuffix(u.Host, ":"))
	switch {
	case u.Scheme == "http" && strings.HasSuffix(h, ":80"):
		h = strings.TrimSuffix(h, ":80")
	case u.Scheme == "https" && strings.HasSuffix(h, ":443"):
		h = strings.TrimSuffix(h, ":443")
	}
	return h
}
