package rdf

import (
	"strings"

	"github.com/harvester-dev/harvester/internal/iri"
)

// ResolveIRI resolves ref against base as RFC 3986 §5.2 says (strict: a reference with a
// scheme is returned as it is, dot segments and all). An empty base, or a base without a
// scheme, leaves ref as it is. It works on the strings, without percent-decoding or
// re-encoding anything, so IRIs (RFC 3987) resolve as well as URIs.
func ResolveIRI(base, ref string) string {
	if base == "" || hasScheme(ref) {
		return ref
	}
	bs, ba, bp, bq, _ := splitIRI(base)
	if bs == "" {
		return ref
	}
	_, ra, rp, rq, rf := splitIRI(ref)
	var ta, tp, tq string
	var hasA, hasQ bool
	switch {
	case ra != nil:
		ta, hasA, tp = *ra, true, iri.RemoveDotSegments(rp)
		if rq != nil {
			tq, hasQ = *rq, true
		}
	case rp == "":
		tp = bp
		if ba != nil {
			ta, hasA = *ba, true
		}
		if rq != nil {
			tq, hasQ = *rq, true
		} else if bq != nil {
			tq, hasQ = *bq, true
		}
	default:
		if ba != nil {
			ta, hasA = *ba, true
		}
		if rq != nil {
			tq, hasQ = *rq, true
		}
		if strings.HasPrefix(rp, "/") {
			tp = iri.RemoveDotSegments(rp)
		} else {
			// merge (§5.2.3)
			if ba != nil && bp == "" {
				tp = "/" + rp
			} else if i := strings.LastIndexByte(bp, '/'); i >= 0 {
				tp = bp[:i+1] + rp
			} else {
				tp = rp
			}
			tp = iri.RemoveDotSegments(tp)
		}
	}
	var b strings.Builder
	b.WriteString(bs)
	b.WriteByte(':')
	if hasA {
		b.WriteString("//")
		b.WriteString(ta)
	}
	b.WriteString(tp)
	if hasQ {
		b.WriteByte('?')
		b.WriteString(tq)
	}
	if rf != nil {
		b.WriteByte('#')
		b.WriteString(*rf)
	}
	return b.String()
}

func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			return true
		default:
			return false
		}
	}
	return false
}

// splitIRI splits s as RFC 3986 Appendix B does; nil components are absent (not empty).
func splitIRI(s string) (scheme string, authority *string, path string, query, fragment *string) {
	if hasScheme(s) {
		i := strings.IndexByte(s, ':')
		scheme, s = s[:i], s[i+1:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		f := s[i+1:]
		fragment, s = &f, s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		q := s[i+1:]
		query, s = &q, s[:i]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexByte(s, '/')
		if i < 0 {
			i = len(s)
		}
		a := s[:i]
		authority, s = &a, s[i:]
	}
	return scheme, authority, s, query, fragment
}
