package dcatus

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestValidateURIMatchesRFC3987 pins the syntax half of the "uri" format
// (isURI) to the verdicts of Python's rfc3987.match(s, "URI"), which the
// Data.gov harvester's FormatChecker uses (the expectations were produced with
// rfc3987 1.3.8); TestURISchemes checks the scheme half.
func TestValidateURIMatchesRFC3987(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in    string
		valid bool
	}{
		{"https://www.gsa.gov/a/b?c=d#e", true},
		{"http://[::1]/", true},
		{"http://[::ffff:1.2.3.4]:80/x", true},
		{"http://[v1.fe]/", true},
		{"http://[1:2:3:4:5:6:7:8:9]/", false},
		{"http://[::1%25eth0]/", false},
		{"http://001.2.3.4/", true},
		{"urn:isbn:123", true},
		{"mailto:a@b.c", true},
		{"http://a:b@c:d/", false},
		{"http://a@b@c/", false},
		{"a:", true},
		{"a:b#c#d", false},
		{"http://x/\n", true}, // Python's "$" matches before a final newline
		{"http://x/\n\n", false},
		{"http://x/ ", false},
		{" http://x/", false},
		{"http://x/a b", false},
		{"http://x/%zz", false},
		{"http://x/%2f", true},
		{"http://x/\u00e9", false},
		{"1a:b", false},
		{"http:///a", true},
		{"http:////a", true},
		{"http://x:80a/", false},
		{"http://[1::2::3]/", false},
		{"http://x/a?b?c/d#e?f/g", true},
		{"http://x/{a}", false},
		{"http://x/a|b", false},
		{"http://x/<a>", false},
		{"http://x/\\a", false},
		{"www.gsa.gov", false},
		{"center", false},
		{"/relative/path", false},
		{"", false},
	}
	for _, tc := range cases {
		require.Equal(t, tc.valid, isURI(strings.TrimSuffix(tc.in, "\n")), "%q", tc.in)
		require.Equal(t, tc.valid, uriOracle.MatchString(strings.TrimSuffix(tc.in, "\n")), "oracle on %q", tc.in)
	}
	require.NoError(t, validateURI(42), "non-strings are not this format's business")
}

// uriOracle is RFC 3986 appendix A's URI rule written as one RE2
// expression, the reference isURI is checked against (RE2 decides
// membership exactly, whatever the order of alternatives).
var uriOracle = regexp.MustCompile(`^` + func() string {
	const (
		pctEncoded = `%` + hexDig + hexDig
		pchar      = `(?:[` + plainChars + `:@]|` + pctEncoded + `)`
		regName    = `(?:[` + plainChars + `]|` + pctEncoded + `)*`
		userinfo   = `(?:[` + plainChars + `:]|` + pctEncoded + `)*`
		host       = `(?:\[(?:` + ipv6 + `|` + ipvFuture + `)\]|` + regName + `)`
		authority  = `(?:` + userinfo + `@)?` + host + `(?::[0-9]*)?`
		segment    = pchar + `*`
		hierPart   = `(?://` + authority + `(?:/` + segment + `)*` + // path-abempty
			`|/(?:` + pchar + `+(?:/` + segment + `)*)?` + // path-absolute
			`|` + pchar + `+(?:/` + segment + `)*` + // path-rootless
			`|)` // path-empty
		scheme = `[A-Za-z][A-Za-z0-9+.-]*`
	)
	return scheme + `:` + hierPart + `(?:\?(?:` + pchar + `|[/?])*)?(?:#(?:` + pchar + `|[/?])*)?`
}() + `$`)

// uriPieces are fragments random URIs are assembled from.
var uriPieces = []string{
	"http", "https", "urn", "a", "Z9", "+", ".", "-", ":", "//", "/", "?", "#", "@", "[", "]", "%", "%2", "%41", "%g1",
	"::", "1", "12", "255", "256", "1.2.3.4", "v1.", "vF.x", "fe80", "::1", "0:0:0:0:0:0:0:1", "1:2:3:4:5:6:7", "8080",
	"www.gsa.gov", "data.json", "~x_", "!$&'()*+,;=", " ", "\t", "\n", "\\", "{", "}", "|", "^", "`", "<", ">", "\"", "\u00e9",
}

// TestIsURIMatchesGrammar checks the hand-written matcher against the
// grammar on random strings built from URI pieces.
func TestIsURIMatchesGrammar(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(uriPieces[rng.IntN(len(uriPieces))])
		}
		s := b.String()
		require.Equal(t, uriOracle.MatchString(s), isURI(s), "%q", s)
	}
}

// FuzzIsURI compares the hand-written matcher with the grammar.
func FuzzIsURI(f *testing.F) {
	for _, s := range []string{"https://www.gsa.gov/a?b#c", "http://[::1]:80/", "urn:x", "a:", "http://a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isURI(s), uriOracle.MatchString(s); got != want {
			t.Fatalf("isURI(%q) = %v, grammar says %v", s, got, want)
		}
	})
}
