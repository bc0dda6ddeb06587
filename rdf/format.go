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

// DefaultMaxTermBytes is Options.MaxTermBytes's default: 16 MiB, the default record size cap
// (--max-record-bytes), since a record holding a longer term is over that cap anyway.
const DefaultMaxTermBytes = 16 << 20

// Options tunes ParseWith. The zero value is Parse's behaviour.
type Options struct {
	// MaxTermBytes caps one IRI, literal, blank node label or prefixed name, in bytes as
	// read (after escapes are expanded). The parser stops with a *SyntaxError as soon as a term
	// passes it, having held at most about MaxTermBytes of it: a 300 MB literal is never read
	// whole. RDF/XML caps each XML token (a start tag with its attributes, a run of text) at
	// it, and JSON-LD caps what it holds at once (one node object of the top-level @graph, or
	// the document outside that array) at 2×MaxTermBytes (parseJSONLD). 0 means
	// DefaultMaxTermBytes.
	MaxTermBytes int
	// Warn, when not nil, receives each problem a parser read past instead of refusing the
	// document (see Warning); the parse goes on.
	Warn func(Warning)

	// record reads N-Triples and N-Quads as Harvester writes its record bodies (ParseRecord).
	record bool
}

func (o Options) maxTerm() int {
	if o.MaxTermBytes <= 0 {
		return DefaultMaxTermBytes
	}
	return o.MaxTermBytes
}

// Warning is input a parser read past with a doubt: RDF/XML the grammar says is an error but
// that is read leniently (misused rdf: names, bad or repeated rdf:ID values, parseRDFXML), and
// Turtle or TriG that is valid but most likely not what its publisher meant (a '#' right after
// a prefixed name, which starts a comment): where it is (1-based line and column) and what. Its String has the SyntaxError form, "[line: 3, col: 5] rdf:ID
// \"1a\" is not an XML NCName".
type Warning struct {
	Line, Col int
	Msg       string
}

func (w Warning) String() string { return fmt.Sprintf("[line: %d, col: %d] %s", w.Line, w.Col, w.Msg) }

// Parse reads one document of format f from r and calls fn for each triple, in document order
// where the syntax allows streaming (Turtle, N-Triples, N-Quads, RDF/XML; JSON-LD streams its
// top-level @graph in batches of node objects, each batch's triples in node map order) and after
// reading the rest of a JSON-LD document. Relative IRIs
// resolve against base (the document's URL). Named graphs of N-Quads, TriG and JSON-LD are
// merged into one graph. It returns a *SyntaxError for a document that does not parse or
// breaks a cap of Options (no triple is promised to have been delivered before it), fn's error
// as it is, or an error wrapping ErrUnsupportedFormat. Parse is ParseWith with zero Options.
//
// Blank nodes are relabelled b<N>_<label> (b<N>g<n> for unlabelled ones), N unique to the
// call, so that documents parsed into one graph never share a blank node. A panic inside a
// parser (a library bug on hostile input) is returned as an error, never raised.
func Parse(r io.Reader, f Format, base string, fn func(Triple) error) error {
	return ParseWith(r, f, base, Options{}, fn)
}

// ParseWith is Parse with options o.
func ParseWith(r io.Reader, f Format, base string, o Options, fn func(Triple) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("rdf: %s parser failed: %v", f, p)
		}
	}()
	switch f {
	case Turtle, NTriples, NQuads, TriG:
		return parseTurtleFamily(r, f, base, o, fn)
	case RDFXML:
		return parseRDFXML(r, base, o, fn)
	case JSONLD:
		return parseJSONLD(r, base, o, fn)
	}
	return fmt.Errorf("%w: %s", ErrUnsupportedFormat, f)
}

// ParseRecord reads a record body Harvester wrote (the N-Quads of dcatap.Canonical, each line
// in Term.NTriples's form) and calls fn for each triple. It is Parse with NQuads and no base,
// except that it takes two things the grammar refuses in a publisher's document and that
// Term.NTriples writes for IRIs RDF/XML and JSON-LD sources deliver: a \u escape of a
// character IRIREF excludes (the space some RDF/XML files carry in rdf:resource) and a
// relative IRI. Read a publisher's N-Triples or N-Quads with Parse, which refuses both.
func ParseRecord(r io.Reader, fn func(Triple) error) error {
	return ParseWith(r, NQuads, "", Options{record: true}, fn)
}

// ParseNQuads is Parse with NQuads: graph names are dropped, the triples merged.
func ParseNQuads(r io.Reader, base string, fn func(Triple) error) error {
	return Parse(r, NQuads, base, fn)
}

// ParseGraph is Parse adding every triple to g.
func ParseGraph(r io.Reader, f Format, base string, g Graph) error {
	return Parse(r, f, base, g.Add)
}
