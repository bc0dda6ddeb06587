package dcatus

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// uriFormat replaces the library's "uri" format check, which accepts
// whatever net/url parses, including spaces ("https://a.gov/x y"), a
// trailing space or "<>" in the path. The Data.gov harvester checks "uri"
// with Python jsonschema's FormatChecker and the rfc3987 package, which
// matches the RFC 3986 "URI" rule (appendix A):
//
//	URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]
//
// Its syntax check, isURI, accepts exactly the same strings, so that, for
// example, a describedBy URL with a trailing space is invalid here as it is
// there. One
// quirk is copied on purpose: rfc3987 anchors its pattern with Python's "$",
// which also matches before a final newline, so a URI followed by one "\n"
// passes there and passes here.
//
// On top of that, unlike rfc3987, the scheme must be one of urlSchemes: every
// "uri" of DCAT-US 1.1 (landingPage, license, conformsTo, describedBy,
// references, downloadURL, accessURL…) is a link that API consumers and the
// catalog's pages follow, so a URI that runs code or reads local or inline
// content (javascript:, vbscript:, data:, file:) is invalid, as is a scheme
// no client knows (a typo such as "hhttps:").
var uriFormat = &jsonschema.Format{Name: "uri", Validate: validateURI}

var errNotURI = errors.New("not an RFC 3986 URI")

// urlSchemes are the schemes a "uri" may have, lower case (RFC 3986 §3.1:
// schemes compare ignoring case): the web's and file transfer's, mailto (a
// contact), and the URN and DOI names that identify a resource.
var urlSchemes = []string{"http", "https", "ftp", "ftps", "sftp", "mailto", "urn", "doi"}

func validateURI(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	if !isURI(strings.TrimSuffix(s, "\n")) {
		return errNotURI
	}
	scheme, _, _ := strings.Cut(s, ":")
	if !slices.Contains(urlSchemes, strings.ToLower(scheme)) {
		return fmt.Errorf("scheme %q is not allowed where a URL is expected: want one of %s",
			scheme, strings.Join(urlSchemes, ", "))
	}
	return nil
}

// isURI reports whether s matches RFC 3986's URI rule. It is a hand-written
// matcher for speed (catalogs hold many URLs); uri_test.go checks it against
// the grammar written as one regular expression.
func isURI(s string) bool {
	// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	i := 1
	for i < len(s) && (isAlpha(s[i]) || isDigit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.') {
		i++
	}
	if i == len(s) || s[i] != ':' {
		return false
	}
	rest := s[i+1:]

	// No part before the fragment may hold "#", nor before the query "?",
	// so the first of each starts that part.
	if j := strings.IndexByte(rest, '#'); j >= 0 {
		if !allOf(rest[j+1:], "/?") {
			return false
		}
		rest = rest[:j]
	}
	if j := strings.IndexByte(rest, '?'); j >= 0 {
		if !allOf(rest[j+1:], "/?") {
			return false
		}
		rest = rest[:j]
	}

	// hier-part = "//" authority path-abempty / path-absolute / path-rootless
	// / path-empty. Paths are pchars and "/"; without an authority the path
	// cannot start with "//", which the first branch has taken.
	if auth, ok := strings.CutPrefix(rest, "//"); ok {
		j := strings.IndexByte(auth, '/')
		if j < 0 {
			j = len(auth)
		}
		if !isAuthority(auth[:j]) {
			return false
		}
		rest = auth[j:]
	}
	return allOf(rest, "/")
}

// isAuthority matches authority = [ userinfo "@" ] host [ ":" port ].
func isAuthority(a string) bool {
	// Neither userinfo nor host holds "@".
	if k := strings.IndexByte(a, '@'); k >= 0 {
		if !allOf(a[:k], "") {
			return false
		}
		a = a[k+1:]
	}
	var port string
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 || !ipLiteralPattern.MatchString(a[1:end]) {
			return false
		}
		switch after := a[end+1:]; {
		case after == "":
		case after[0] == ':':
			port = after[1:]
		default:
			return false
		}
	} else {
		host := a
		if k := strings.IndexByte(a, ':'); k >= 0 {
			host, port = a[:k], a[k+1:]
		}
		// reg-name (which includes IPv4address)
		if !allOf(host, "") || strings.ContainsAny(host, ":@") {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return false
		}
	}
	return true
}

// allOf reports whether s is made of unreserved characters, pct-encoded
// octets, sub-delims, ":", "@" (that is, pchars) and the bytes in extra.
func allOf(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlpha(c) || isDigit(c):
		case strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0:
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// ipLiteralPattern matches what RFC 3986 allows between "[" and "]":
// IPv6address or IPvFuture. IP literals are rare, so an expression is fast
// enough here.
var ipLiteralPattern = regexp.MustCompile(`^(?:` + ipv6 + `|` + ipvFuture + `)$`)

const (
	hexDig = `[0-9A-Fa-f]`
	// unreserved and sub-delims
	plainChars = `A-Za-z0-9._~!$&'()*+,;=\-`

	decOctet = `(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)`
	ipv4     = `(?:` + decOctet + `\.){3}` + decOctet
	h16      = hexDig + `{1,4}`
	ls32     = `(?:` + h16 + `:` + h16 + `|` + ipv4 + `)`
	ipv6     = `(?:` +
		`(?:` + h16 + `:){6}` + ls32 +
		`|::(?:` + h16 + `:){5}` + ls32 +
		`|(?:` + h16 + `)?::(?:` + h16 + `:){4}` + ls32 +
		`|(?:(?:` + h16 + `:){0,1}` + h16 + `)?::(?:` + h16 + `:){3}` + ls32 +
		`|(?:(?:` + h16 + `:){0,2}` + h16 + `)?::(?:` + h16 + `:){2}` + ls32 +
		`|(?:(?:` + h16 + `:){0,3}` + h16 + `)?::` + h16 + `:` + ls32 +
		`|(?:(?:` + h16 + `:){0,4}` + h16 + `)?::` + ls32 +
		`|(?:(?:` + h16 + `:){0,5}` + h16 + `)?::` + h16 +
		`|(?:(?:` + h16 + `:){0,6}` + h16 + `)?::` +
		`)`
	ipvFuture = `v` + hexDig + `+\.[` + plainChars + `:]+`
)
