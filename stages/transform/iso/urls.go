package iso

import (
	"fmt"
	"strings"

	"golang.org/x/net/idna"
)

// notInURI are the printable ASCII characters RFC 3986 allows nowhere in a URI (besides "%"
// that starts no escape), which records still put in links: a space in a file name, "|" or
// "{}" in a query.
const notInURI = " \"<>\\^`{|}"

// escapeURL percent-encodes, as UTF-8 (RFC 3986 §2.1, and RFC 3987 §3.1's mapping of an IRI
// to a URI), what a link may not hold as written: each byte of a non-ASCII character
// ("Qualité" → "Qualit%C3%A9"), the characters of notInURI ("my data" → "my%20data") and a
// "%" that starts no escape ("100%" → "100%25"). A non-ASCII host name becomes its IDNA
// (punycode) form, which resolvers know ("bücher.example" → "xn--bcher-kva.example"); one that
// has none is percent-encoded too. Everything else is kept as written.
func escapeURL(s string) string {
	if i := strings.Index(s, "://"); i > 0 {
		start := i + 3
		end := len(s)
		if j := strings.IndexAny(s[start:], "/?#"); j >= 0 {
			end = start + j
		}
		authority := s[start:end]
		userinfo, host := "", authority
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			userinfo, host = authority[:at+1], authority[at+1:]
		}
		if !isASCII([]byte(host)) {
			if a, err := idna.Lookup.ToASCII(host); err == nil {
				s = s[:start] + userinfo + a + s[end:]
			}
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80 || strings.IndexByte(notInURI, c) >= 0:
			fmt.Fprintf(&b, "%%%02X", c)
		case c == '%' && !(i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])):
			b.WriteString("%25")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
