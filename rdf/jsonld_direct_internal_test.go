package rdf

import (
	"testing"

	"github.com/piprate/json-gold/ld"
	"github.com/stretchr/testify/require"
)

// TestDirectValidIRI: the direct converter's check of IRIs, remembered by authority, says what
// json-gold's (ld.IsURL on the whole IRI) says, asked in either order.
func TestDirectValidIRI(t *testing.T) {
	iris := []string{
		"http://example.org/", "http://example.org", "https://data.example.org/dataset/1/csv?x=1#f",
		"http://example.org/a b", "http://example.org/a\tb", "http://user@example.org/p", "http://example.org/p@q",
		"http://example.org:80/x", "http://example.org:999999/x", "http://1.2.3.4/x", "http://1.2.3.400/x",
		"http://[::1]/x", "http://[fe80::1%25eth0]/x", "http://example.org./x", "http:///x", "http://",
		"http://exa_mple.org/x", "http://-bad.org/x", "http://bad-.org/x", "http://ex ample.org/x",
		"http://bücher.example/x", "http://example.org?q", "http://example.org#f", "http://a/x", "http://a..b/x",
		"https://www.iana.org/assignments/media-types/application/json", "http://example.org:/x", "http://x:y@z/",
	}
	for _, order := range [][]string{iris, reversed(iris)} {
		c := newDirectConverter(ld.NewIdentifierIssuer("_:b"), newBlankScope())
		for _, iri := range order {
			require.Equal(t, ld.IsURL(iri), c.validIRI(iri), iri)
		}
	}
}

func reversed(s []string) []string {
	r := make([]string, len(s))
	for i, x := range s {
		r[len(s)-1-i] = x
	}
	return r
}
