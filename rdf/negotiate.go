package rdf

import (
	"fmt"
	"mime"
	"path"
	"strings"
)

// mediaTypes maps media types, aliases included, to formats.
var mediaTypes = map[string]Format{
	"text/turtle":           Turtle,
	"application/x-turtle":  Turtle,
	"application/turtle":    Turtle,
	"text/n3":               Turtle,
	"text/rdf+n3":           Turtle,
	"application/n-triples": NTriples,
	"text/plain":            NTriples,
	"application/n-quads":   NQuads,
	"text/n-quads":          NQuads,
	"text/x-nquads":         NQuads,
	"application/trig":      TriG,
	"application/x-trig":    TriG,
	"application/rdf+xml":   RDFXML,
	"application/xml":       RDFXML,
	"text/xml":              RDFXML,
	"application/ld+json":   JSONLD,
	"application/json":      JSONLD,
}

// extensions maps file extensions to formats.
var extensions = map[string]Format{
	".ttl": Turtle, ".n3": Turtle, ".nt": NTriples, ".nq": NQuads, ".trig": TriG,
	".rdf": RDFXML, ".owl": RDFXML, ".xml": RDFXML, ".jsonld": JSONLD, ".json": JSONLD,
}

// ErrUnknownFormat is returned by FormatFor when neither the response, the Accept setting nor
// the name says which RDF syntax a document is in.
var ErrUnknownFormat = fmt.Errorf("cannot tell the RDF format")

// FormatFor picks the parser for a fetched document, in this order: the response's
// Content-Type (parameters such as charset ignored; aliases such as application/x-turtle,
// text/n3 or application/json mapped), then the source's configured Accept (its first listed
// media type that is known, q-values ignored), then name's extension (.ttl .n3 .nt .nq .trig
// .rdf .owl .xml .jsonld .json; name is a URL or file path, its query and fragment ignored).
// A generic or unknown Content-Type (application/octet-stream, text/html, */*) does not
// decide. It returns an error wrapping ErrUnknownFormat naming all three when none decides.
func FormatFor(contentType, accept, name string) (Format, error) {
	if f, ok := formatOfMediaType(contentType); ok {
		return f, nil
	}
	for _, a := range strings.Split(accept, ",") {
		if f, ok := formatOfMediaType(a); ok {
			return f, nil
		}
	}
	n := name
	if i := strings.IndexAny(n, "?#"); i >= 0 {
		n = n[:i]
	}
	if f, ok := extensions[strings.ToLower(path.Ext(n))]; ok {
		return f, nil
	}
	return "", fmt.Errorf("%w: Content-Type %q, Accept %q, name %q", ErrUnknownFormat, contentType, accept, name)
}

func formatOfMediaType(s string) (Format, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	mt, _, err := mime.ParseMediaType(s)
	if err != nil {
		mt, _, _ = strings.Cut(s, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	f, ok := mediaTypes[mt]
	return f, ok
}
