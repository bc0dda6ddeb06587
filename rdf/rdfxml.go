package rdf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html/charset"
)

const (
	xmlNS          = "http://www.w3.org/XML/1998/namespace"
	rdfXMLLiteral  = rdfNS + "XMLLiteral"
	rdfDescription = rdfNS + "Description"
)

// rdfxmlParser is a streaming RDF/XML parser (RDF 1.1 XML Syntax, W3C REC 2014-02-25, §7
// grammar) over encoding/xml. github.com/spdx/gordf, which DESIGN.md names, keeps neither
// xml:lang nor rdf:datatype (its Node is a type and an ID), emits rdf:type rdf:Description
// for every node, has no property attributes or rdf:parseType, and parses with racing
// goroutines; knakk/rdf fails on nested typed nodes. So this package parses RDF/XML itself:
// triples are emitted as elements close, and only the element stack is held in memory.
//
// Covered: rdf:RDF or a single top node element, typed node elements, rdf:about / rdf:ID /
// rdf:nodeID, property attributes and rdf:type attributes, rdf:resource, rdf:datatype,
// xml:lang and xml:base (scoped), rdf:li numbering, rdf:parseType="Resource", "Literal"
// (an rdf:XMLLiteral of the content as written back by encoding/xml) and "Collection",
// rdf:ID on property elements (reification). rdf:bagID and rdf:aboutEach (removed from RDF
// in 2004) are errors. A property element holding two node elements is an error, as
// in rdflib ("Repeat node-elements inside property elements"). Some RDF/XML the grammar
// refuses is read leniently, each problem reported to Options.Warn (rdfxml_lenient.go).
type rdfxmlParser struct {
	dec    *xml.Decoder
	cr     *capReader // under dec: one token is at most maxTerm bytes
	opts   Options
	blanks *blankScope
	fn     func(Triple) error
	last   pos // where the token being handled starts
	depth  int
	ids    map[string]bool // the rdf:ID IRIs given so far (checkID)
}

// xmlCtx is what an element inherits: its base and language.
type xmlCtx struct {
	base, lang string
}

func parseRDFXML(r io.Reader, base string, o Options, fn func(Triple) error) error {
	cr := newCapReader(r)
	dec := xml.NewDecoder(cr)
	dec.CharsetReader = charset.NewReaderLabel
	p := &rdfxmlParser{dec: dec, cr: cr, opts: o, blanks: newBlankScope(), fn: fn}
	ctx := xmlCtx{base: stripFragment(base)}
	for {
		tok, err := p.token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			c := p.scope(ctx, t)
			if name(t.Name) == rdfNS+"RDF" {
				return p.rdfRoot(c)
			}
			_, err := p.nodeElement(t, c)
			if err != nil {
				return err
			}
			return p.rest()
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return p.errorf("text outside the root element")
			}
		}
	}
}

// rest checks that nothing but whitespace, comments and processing instructions follows.
func (p *rdfxmlParser) rest() error {
	for {
		tok, err := p.token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, ok := tok.(xml.StartElement); ok {
			return p.errorf("a second root element")
		}
	}
}

// token reads the next token, recording where it starts; XML errors become *SyntaxError.
func (p *rdfxmlParser) token() (xml.Token, error) {
	l, c := p.dec.InputPos()
	p.last = pos{l, c}
	p.cr.arm(int64(p.opts.maxTerm()))
	tok, err := p.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		if errors.Is(err, errOverCap) {
			return nil, p.errorf("an XML token (a tag with its attributes, or text) longer than %d bytes, the term cap "+
				"(the record size cap, --max-record-bytes)", p.opts.maxTerm())
		}
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			l, c := p.dec.InputPos()
			if se.Line != l {
				c = 0
			}
			return nil, &SyntaxError{Format: RDFXML, Line: se.Line, Col: c, Msg: se.Msg}
		}
		var ue xml.UnmarshalError
		if errors.As(err, &ue) {
			return nil, &SyntaxError{Format: RDFXML, Line: p.last.line, Col: p.last.col, Msg: string(ue)}
		}
		if strings.Contains(err.Error(), "charset") {
			return nil, &SyntaxError{Format: RDFXML, Line: p.last.line, Col: p.last.col, Msg: err.Error()}
		}
		return nil, fmt.Errorf("rdf: reading RDF/XML: %w", err)
	}
	return tok, nil
}

// tokenIn reads the next token inside an element (where says which, e.g. " inside rdf:RDF"):
// the end of the input there is an error saying so.
func (p *rdfxmlParser) tokenIn(where string) (xml.Token, error) {
	tok, err := p.token()
	if errors.Is(err, io.EOF) {
		return nil, p.errorf("unexpected end of input%s", where)
	}
	return tok, err
}

// tokenInElement is tokenIn inside the element named local.
func (p *rdfxmlParser) tokenInElement(local string) (xml.Token, error) {
	tok, err := p.token()
	if errors.Is(err, io.EOF) {
		return nil, p.errorf("unexpected end of input in <%s>", local)
	}
	return tok, err
}

func (p *rdfxmlParser) errorf(format string, args ...any) error {
	return &SyntaxError{Format: RDFXML, Line: p.last.line, Col: p.last.col, Msg: fmt.Sprintf(format, args...)}
}

func (p *rdfxmlParser) emit(s, pr, o Term) error { return p.fn(Triple{S: s, P: pr, O: o}) }

func name(n xml.Name) string { return n.Space + n.Local }

// scope applies an element's xml:base and xml:lang to ctx.
func (p *rdfxmlParser) scope(ctx xmlCtx, t xml.StartElement) xmlCtx {
	for _, a := range t.Attr {
		if a.Name.Space == xmlNS || a.Name.Space == "xml" {
			switch a.Name.Local {
			case "base":
				ctx.base = stripFragment(ResolveIRI(ctx.base, a.Value))
			case "lang":
				ctx.lang = a.Value
			}
		}
	}
	return ctx
}

func stripFragment(s string) string {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		return s[:i]
	}
	return s
}

// rdfAttr returns the rdf: syntax attribute local (about, ID, nodeID, resource, datatype,
// parseType), also when written without a prefix (deprecated but seen).
func rdfAttr(a xml.Attr) (string, bool) {
	switch a.Name.Local {
	case "about", "ID", "nodeID", "resource", "datatype", "parseType", "bagID", "aboutEach", "aboutEachPrefix":
		return a.Name.Local, a.Name.Space == rdfNS || a.Name.Space == ""
	}
	return "", false
}

// isPropertyAttr reports whether a is a property attribute (not xml:, xmlns, or rdf syntax).
func isPropertyAttr(a xml.Attr) bool {
	if a.Name.Space == xmlNS || a.Name.Space == "xml" || a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
		return false
	}
	if _, ok := rdfAttr(a); ok {
		return false
	}
	if a.Name.Space == "" {
		return false // unqualified attributes are not RDF
	}
	if a.Name.Space == rdfNS && (a.Name.Local == "li" || a.Name.Local == "RDF" || a.Name.Local == "Description") {
		return false
	}
	return true
}

func (p *rdfxmlParser) rdfRoot(ctx xmlCtx) error {
	for {
		tok, err := p.tokenIn(" inside rdf:RDF")
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if _, err := p.nodeElement(t, p.scope(ctx, t)); err != nil {
				return err
			}
		case xml.EndElement:
			return p.rest()
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return p.errorf("text directly inside rdf:RDF")
			}
		}
	}
}

// nodeElement handles a node element whose start tag was just read, up to its end tag, and
// returns its subject.
func (p *rdfxmlParser) nodeElement(t xml.StartElement, ctx xmlCtx) (Term, error) {
	if p.depth++; p.depth > maxNesting {
		return Term{}, p.errorf("more than %d nested elements", maxNesting)
	}
	defer func() { p.depth-- }()
	at := p.last
	p.checkElement(t, ctx, true)
	var s Term
	for _, a := range t.Attr {
		local, ok := rdfAttr(a)
		if !ok {
			continue
		}
		var n Term
		switch local {
		case "about":
			n = IRI(ResolveIRI(ctx.base, a.Value))
		case "ID":
			n = IRI(ResolveIRI(ctx.base, "#"+a.Value))
		case "nodeID":
			n = p.blanks.label(a.Value)
		case "bagID", "aboutEach", "aboutEachPrefix":
			return Term{}, p.errorf("rdf:%s was removed from RDF (2004)", local)
		default:
			continue
		}
		if !s.IsZero() {
			return Term{}, p.errorf("a node element has only one of rdf:about, rdf:ID, rdf:nodeID")
		}
		s = n
	}
	if s.IsZero() {
		s = p.blanks.fresh()
	}
	if t.Name.Space == "" {
		return Term{}, p.errorf("element <%s> has no namespace", t.Name.Local)
	}
	if el := name(t.Name); el != rdfDescription {
		if err := p.emit(s, IRI(RDFType), IRI(el)); err != nil {
			return Term{}, err
		}
	}
	for _, a := range t.Attr {
		if !isPropertyAttr(a) {
			continue
		}
		var o Term
		if name(a.Name) == RDFType {
			o = IRI(ResolveIRI(ctx.base, a.Value))
		} else {
			o = Literal(a.Value, "", ctx.lang)
		}
		if err := p.emit(s, IRI(name(a.Name)), o); err != nil {
			return Term{}, err
		}
	}
	li := 0
	for {
		tok, err := p.token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return Term{}, &SyntaxError{Format: RDFXML, Line: at.line, Col: at.col, Msg: "element not closed"}
			}
			return Term{}, err
		}
		switch c := tok.(type) {
		case xml.StartElement:
			if err := p.propertyElement(c, s, p.scope(ctx, c), &li); err != nil {
				return Term{}, err
			}
		case xml.EndElement:
			return s, nil
		case xml.CharData:
			if len(bytes.TrimSpace(c)) > 0 {
				return Term{}, p.errorf("text %q in a node element (expected property elements)", clip(string(bytes.TrimSpace(c))))
			}
		}
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// expectEnd reads up to t's end tag, which must come with no element before it.
func (p *rdfxmlParser) expectEnd(t xml.StartElement) error {
	for {
		tok, err := p.tokenInElement(t.Name.Local)
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.EndElement:
			return nil
		case xml.CharData:
			// Text here is not RDF/XML, but GeoNetwork writes a label there
			// (<dcat:theme rdf:resource="…">Habitats</dcat:theme>); rdflib and rapper drop
			// it, and so do we.
		case xml.StartElement:
			return p.errorf("content in <%s>, which has rdf:resource, rdf:nodeID or property attributes and so must be empty", t.Name.Local)
		}
	}
}
