package harvest

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/internal/iri"
)

// NormalizeURL returns the normal form of a harvest source's http(s) URL, the form it is stored
// and fetched in, so that one catalog written several ways is one source. It applies RFC 3986
// §6.2.2 (syntax-based) and §6.2.3 (scheme-based) normalisation, and nothing that could change
// which resource the URL names:
//
//   - white space around the URL is trimmed;
//   - the scheme and the host are lower-cased (ASCII letters only: a host's other characters
//     are percent-encoded UTF-8, as url.URL writes them);
//   - percent-escapes get upper-case hex digits, escapes of unreserved characters
//     (A-Z a-z 0-9 - . _ ~) are decoded, and bytes a URI cannot hold (spaces, non-ASCII) are
//     encoded; an escaped reserved character (%2F in a path) stays escaped;
//   - "." and ".." path segments are removed (RFC 3986 §5.2.4), and an empty path is "/";
//   - the default port (:80 for http, :443 for https, however written, e.g. :0443) and an empty
//     port are dropped, and a port's leading zeros;
//   - the fragment is dropped (it is never sent to the server), and so is an empty query ("?").
//
// The path's case, the query (order, "+", empty values) and the userinfo are kept. Empty path
// segments ("a//b") are kept too: RFC 3986 does not make them equivalent, and a server may
// tell them apart (an S3 key "a//b" is not "a/b"); SameSourceURL compares without them. It
// returns an error, naming the URL, when raw is not an absolute http or https URL with a host.
// NormalizeURL(NormalizeURL(u)) == NormalizeURL(u).
func NormalizeURL(raw string) (string, error) {
	trimmed := strings.TrimSpace(raw)
	u, err := url.Parse(trimmed)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %w", raw, errors.Unwrap(err))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" {
		return "", fmt.Errorf("%q is not an absolute http or https URL", raw)
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("%q has no host", raw)
	}
	var b strings.Builder
	b.WriteString(u.Scheme) // url.Parse lower-cases it
	b.WriteString("://")
	if u.User != nil {
		b.WriteString(u.User.String())
		b.WriteByte('@')
	}
	b.WriteString(normalHost(u.Hostname()))
	if port := normalPort(u.Scheme, u.Port()); port != "" {
		b.WriteString(":" + port)
	}
	rawPath := u.RawPath // url.Parse keeps the path as written when its own escaping differs
	if rawPath == "" {
		rawPath = u.EscapedPath()
	}
	path := iri.RemoveDotSegments(normalEscapes(rawPath))
	if path == "" {
		path = "/"
	}
	b.WriteString(path)
	if u.RawQuery != "" {
		b.WriteString("?" + normalEscapes(u.RawQuery))
	}
	return b.String(), nil
}

// SameSourceURL reports whether two source URLs name the same catalog: their normal forms
// (NormalizeURL) are equal once runs of "/" in the path are read as one. Web servers mostly
// serve "a//b" as "a/b", so a source registered both ways would harvest one catalog twice;
// the stored URL keeps its slashes, as the publisher wrote them. URLs that do not normalise are
// compared as they are.
func SameSourceURL(a, b string) bool {
	return sourceKey(a) == sourceKey(b)
}

// sourceKey is the form SameSourceURL compares.
func sourceKey(raw string) string {
	n, err := NormalizeURL(raw)
	if err != nil {
		return raw
	}
	authority := strings.Index(n, "://") + len("://")
	start := authority + strings.IndexByte(n[authority:], '/') // a normal form always has a path
	path, query, hasQuery := strings.Cut(n[start:], "?")
	for strings.Contains(path, "//") {
		path = strings.ReplaceAll(path, "//", "/")
	}
	if hasQuery {
		path += "?" + query
	}
	return n[:start] + path
}

// normalHost lower-cases the ASCII letters of a host (url.URL.Hostname: escapes decoded,
// brackets of an IPv6 literal removed) and writes it back as a URL holds it: non-ASCII bytes
// percent-encoded, an IPv6 literal in brackets with its zone (kept as it is) after "%25".
func normalHost(host string) string {
	zone := ""
	if strings.Contains(host, ":") { // an IPv6 literal
		if i := strings.IndexByte(host, '%'); i >= 0 {
			host, zone = host[:i], host[i+1:]
		}
	}
	var b strings.Builder
	for i := 0; i < len(host); i++ {
		switch c := host[i]; {
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c >= 0x80 || c <= ' ' || c == '%':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	if !strings.Contains(host, ":") {
		return b.String()
	}
	if zone != "" {
		return "[" + b.String() + "%25" + url.PathEscape(zone) + "]"
	}
	return "[" + b.String() + "]"
}

// normalPort returns the port to write: "" for none, an empty one or the scheme's default,
// else the number without leading zeros.
func normalPort(scheme, port string) string {
	if port == "" {
		return ""
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return port // url.Parse accepted it; keep it as written
	}
	if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
		return ""
	}
	return strconv.FormatUint(n, 10)
}

// normalEscapes rewrites the percent-encoding of a URL's path or query (RFC 3986 §6.2.2.2):
// escapes of unreserved characters are decoded, other escapes get upper-case hex digits, and
// bytes a URI cannot hold as they are (controls, space, non-ASCII and the like) are encoded.
// Reserved characters, escaped or not, are left as written: "/" and "%2F" mean different things.
func normalEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if unreserved(v) {
				b.WriteByte(v)
			} else {
				fmt.Fprintf(&b, "%%%02X", v)
			}
			i += 2
			continue
		}
		if unreserved(c) || strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
