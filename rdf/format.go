package rdf

import (
	"errors"
	"fmt"
	"io"
)

// Format is an RDF syntax, named by its media type.
type Format string

// Formats.
const (
	Turtle   Format = "text/turtle"
	NTriples Format = "application/n-triples"
	NQuads   Format = "application/n-quads"
	TriG     Format = "application/trig"
	RDFXML   Format = "application/rdf+xml"
	JSONLD   Format = "application/ld+json"
)

// SyntaxError is a document that does not parse: the position of the first error (1-based line
// and column, 0 when the parser gives none) and the parser's reason. Its Error text is FDK's
// form: "[line: 6, col: 86] Bad character in IRI (space)".
type SyntaxError struct {
	Format Format
	Line   int
	Col    int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("[line: %d, col: %d] %s", e.Line, e.Col, e.Msg)
}

// ErrUnsupportedFormat is returned by Parse for a Format it has no parser for.
var ErrUnsupportedFormat = errors.New("unsupported RDF format")

// Parse reads one document of format f from r and calls fn for each triple, in document order
// where the syntax allows streaming (Turtle, N-Triples, N-Quads) and after reading the whole
// document otherwise (RDF/XML, JSON-LD). Relative IRIs resolve against base (the document's
// URL). Named graphs of N-Quads and TriG are merged into one graph. It returns a *SyntaxError
// for a document that does not parse (no triple is promised to have been delivered before it),
// fn's error as it is, or an error wrapping ErrUnsupportedFormat.
func Parse(r io.Reader, f Format, base string, fn func(Triple) error) error {
	switch f {
	case Turtle, NTriples, NQuads, TriG:
		return parseTurtleFamily(r, f, base, fn)
	case RDFXML:
		return parseRDFXML(r, base, fn)
	case JSONLD:
		return parseJSONLD(r, base, fn)
	}
	return fmt.Errorf("%w: %s", ErrUnsupportedFormat, f)
}

// ParseGraph is Parse adding every triple to g.
func ParseGraph(r io.Reader, f Format, base string, g Graph) error {
	return Parse(r, f, base, g.Add)
}
