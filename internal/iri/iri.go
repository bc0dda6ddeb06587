// Package iri holds the string algorithms of RFC 3986 (URIs) and RFC 3987 (IRIs) that more
// than one package needs: the RDF parsers resolving relative IRIs (rdf) and a source URL's
// normal form (harvest).
package iri

import "strings"

// RemoveDotSegments is RFC 3986 §5.2.4's remove_dot_segments on a path (absolute, relative
// or empty): "." and ".." segments are removed, each ".." with the segment before it
// ("/a/b/c/./../../g" is "/a/g", "mid/content=5/../6" is "mid/6"). It works on the string as
// it is, without decoding or encoding anything, so IRI paths (RFC 3987) are handled too.
func RemoveDotSegments(in string) string {
	if !strings.Contains(in, ".") {
		return in
	}
	var out []string // output segments, each with its leading "/" if any
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			start := 0
			if in[0] == '/' {
				start = 1
			}
			i := strings.IndexByte(in[start:], '/')
			if i < 0 {
				out = append(out, in)
				in = ""
			} else {
				out = append(out, in[:start+i])
				in = in[start+i:]
			}
		}
	}
	return strings.Join(out, "")
}
