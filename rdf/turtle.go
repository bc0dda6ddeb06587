package rdf

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
)

// Well-known IRIs the Turtle family produces.
const (
	rdfNS      = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	rdfFirst   = rdfNS + "first"
	rdfRest    = rdfNS + "rest"
	rdfNil     = rdfNS + "nil"
	xsdNS      = "http://www.w3.org/2001/XMLSchema#"
	XSDInteger = xsdNS + "integer"
	XSDDecimal = xsdNS + "decimal"
	XSDDouble  = xsdNS + "double"
	XSDBoolean = xsdNS + "boolean"
	maxNesting = 1000 // [ ] and ( ) nesting a document may have
)

// scopeSeq numbers Parse calls, so that blank nodes of different documents never meet.
var scopeSeq atomic.Uint64

// blankScope relabels one document's blank nodes: a label L of the document becomes
// "b<N>_L" and the n-th node the syntax leaves unlabelled ([ ], collections) "b<N>g<n>", where
// N is unique to the Parse call. Labels stay valid N-Triples labels, and two documents parsed
// into one graph (Hydra pages) never share a blank node by accident (RDF 1.1 Concepts §3.4:
// blank node identifiers are local to a document).
type blankScope struct {
	prefix string
	n      uint64
}

func newBlankScope() *blankScope {
	return &blankScope{prefix: "b" + strconv.FormatUint(scopeSeq.Add(1), 10)}
}

func (s *blankScope) label(l string) Term { return Blank(s.prefix + "_" + l) }

func (s *blankScope) fresh() Term {
	s.n++
	return Blank(s.prefix + "g" + strconv.FormatUint(s.n, 10))
}

// turtleParser is a streaming parser for Turtle 1.1 (W3C REC 2014-02-25), TriG (named graphs
// merged into one graph), and, in strict mode, N-Triples and N-Quads. It keeps only the
// prefix map, the base and the lookahead in memory.
type turtleParser struct {
	rr       *runeReader
	format   Format
	base     string
	prefixes map[string]string
	blanks   *blankScope
	fn       func(Triple) error
	depth    int
	lineMode bool // N-Triples or N-Quads: one triple a statement, no abbreviations
	trig     bool
	maxTerm  int           // Options.MaxTermBytes
	warn     func(Warning) // Options.Warn, nil when not asked for
	record   bool          // Options.record: a record body ParseRecord reads
}

func parseTurtleFamily(r io.Reader, f Format, base string, o Options, fn func(Triple) error) error {
	p := &turtleParser{
		rr:       newRuneReader(r, f),
		format:   f,
		base:     base,
		prefixes: map[string]string{},
		blanks:   newBlankScope(),
		fn:       fn,
		lineMode: f == NTriples || f == NQuads,
		trig:     f == TriG,
		maxTerm:  o.maxTerm(),
		warn:     o.Warn,
		record:   o.record,
	}
	for {
		p.skipWS()
		if p.rr.peek() == eof {
			return p.rr.endErr()
		}
		var err error
		if p.lineMode {
			err = p.lineStatement()
		} else {
			err = p.statement()
		}
		if err != nil {
			return err
		}
	}
}

func (p *turtleParser) errorf(at pos, format string, args ...any) error {
	return p.rr.errorAt(at, format, args...)
}

// warnf reports a Warning at at, when the caller asked for them.
func (p *turtleParser) warnf(at pos, format string, args ...any) {
	if p.warn != nil {
		p.warn(Warning{Line: at.line, Col: at.col, Msg: fmt.Sprintf(format, args...)})
	}
}

// tooLong is the error of a term (what: "IRI", "string"…) starting at at that has passed the
// term cap: it is returned as soon as the cap is passed, so no more of the term is read.
func (p *turtleParser) tooLong(at pos, what string) error {
	return p.errorf(at, "%s longer than %d bytes, the term cap (the record size cap, --max-record-bytes)", what, p.maxTerm)
}

func (p *turtleParser) skipWS() {
	for {
		switch p.rr.peek() {
		case ' ', '\t', '\r', '\n':
			p.rr.next()
		case '#':
			for c := p.rr.peek(); c != '\n' && c != eof; c = p.rr.peek() {
				p.rr.next()
			}
		default:
			return
		}
	}
}

func (p *turtleParser) emit(s, pr, o Term) error { return p.fn(Triple{S: s, P: pr, O: o}) }

func (p *turtleParser) expect(c rune, what string) error {
	p.skipWS()
	at := p.rr.pos()
	if got := p.rr.peek(); got != c {
		return p.errorf(at, "expected %s, found %s", what, describe(got))
	}
	p.rr.next()
	return nil
}

// statement parses one Turtle or TriG statement: a directive, triples ending in '.', or (TriG)
// a graph block.
func (p *turtleParser) statement() error {
	at := p.rr.pos()
	c := p.rr.peek()
	switch {
	case c == '@':
		return p.atDirective()
	case c == '{' && p.trig:
		return p.wrappedGraph()
	case isPNCharsBase(c):
		word, ok := p.peekKeyword()
		switch {
		case ok && strings.EqualFold(word, "PREFIX"):
			p.consume(len(word))
			return p.prefixDirective(false)
		case ok && strings.EqualFold(word, "BASE"):
			p.consume(len(word))
			return p.baseDirective(false)
		case ok && strings.EqualFold(word, "GRAPH") && p.trig:
			p.consume(len(word))
			p.skipWS()
			if _, err := p.graphLabel(); err != nil {
				return err
			}
			return p.wrappedGraph()
		}
	}
	if c == '[' {
		// A blank node property list as subject: its predicate list is optional; or "[]".
		s, empty, err := p.blankNodePropertyList()
		if err != nil {
			return err
		}
		p.skipWS()
		if p.trig && empty && p.rr.peek() == '{' {
			return p.wrappedGraph()
		}
		if empty || p.startsVerb() {
			if err := p.predicateObjectList(s); err != nil {
				return err
			}
		}
		return p.expect('.', "'.' at the end of the triples")
	}
	s, err := p.subject()
	if err != nil {
		return err
	}
	p.skipWS()
	if p.trig && p.rr.peek() == '{' {
		// A collection, "()" (rdf:nil) too, is no graph name (TriG §5.1 labelOrSubject;
		// W3C test trig-collection-graph-01).
		if c == '(' || s.IsLiteral() || s.Kind == KindBlank && strings.HasPrefix(s.Value, p.blanks.prefix+"g") {
			return p.errorf(at, "a graph name must be an IRI or a blank node label")
		}
		return p.wrappedGraph()
	}
	if err := p.predicateObjectList(s); err != nil {
		return err
	}
	return p.expect('.', "'.' at the end of the triples")
}

// wrappedGraph parses a TriG block "{ triples . triples }" (TriG §2.2); its graph name has
// been read and is dropped (graphs are merged).
func (p *turtleParser) wrappedGraph() error {
	if err := p.expect('{', "'{'"); err != nil {
		return err
	}
	for {
		p.skipWS()
		if p.rr.peek() == '}' {
			p.rr.next()
			return nil
		}
		if p.rr.peek() == '[' {
			s, empty, err := p.blankNodePropertyList()
			if err != nil {
				return err
			}
			p.skipWS()
			if empty || p.startsVerb() {
				if err := p.predicateObjectList(s); err != nil {
					return err
				}
			}
		} else {
			s, err := p.subject()
			if err != nil {
				return err
			}
			if err := p.predicateObjectList(s); err != nil {
				return err
			}
		}
		p.skipWS()
		switch p.rr.peek() {
		case '.':
			p.rr.next()
		case '}':
		default:
			return p.errorf(p.rr.pos(), "expected '.' or '}' after the triples, found %s", describe(p.rr.peek()))
		}
	}
}

func (p *turtleParser) graphLabel() (Term, error) {
	switch c := p.rr.peek(); {
	case c == '<':
		return p.iriRef()
	case c == '_':
		return p.blankLabel()
	case c == '[':
		s, empty, err := p.blankNodePropertyList()
		if err == nil && !empty {
			err = p.errorf(p.rr.pos(), "a graph name cannot have properties")
		}
		return s, err
	case c == ':' || isPNCharsBase(c):
		return p.prefixedName()
	}
	return Term{}, p.errorf(p.rr.pos(), "expected a graph name, found %s", describe(p.rr.peek()))
}

// peekKeyword returns the run of ASCII letters ahead when it is a whole word (not followed by
// ':' or another name character), without consuming it.
func (p *turtleParser) peekKeyword() (string, bool) {
	var b strings.Builder
	for k := 0; k < 8; k++ {
		c := p.rr.peekAt(k)
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b.WriteRune(c)
			continue
		}
		if c == ':' || isPNChars(c) || c == '.' && isPNChars(p.rr.peekAt(k+1)) {
			return "", false
		}
		return b.String(), b.Len() > 0
	}
	return "", false
}

func (p *turtleParser) consume(n int) {
	for i := 0; i < n; i++ {
		p.rr.next()
	}
}

func (p *turtleParser) startsVerb() bool {
	c := p.rr.peek()
	return c == '<' || c == ':' || isPNCharsBase(c)
}

// node parses the term ahead when it is an IRI in <>, a blank node label or a collection,
// the forms a subject and an object share; ok is false, and nothing is read, for any other.
func (p *turtleParser) node() (t Term, ok bool, err error) {
	switch p.rr.peek() {
	case '<':
		t, err = p.iriRef()
	case '_':
		t, err = p.blankLabel()
	case '(':
		t, err = p.collection()
	default:
		return Term{}, false, nil
	}
	return t, true, err
}

// subject parses a Turtle subject: IRI, prefixed name, blank node label, [] or a collection.
func (p *turtleParser) subject() (Term, error) {
	p.skipWS()
	if t, ok, err := p.node(); ok {
		return t, err
	}
	switch c := p.rr.peek(); {
	case c == '[':
		s, empty, err := p.blankNodePropertyList()
		if err == nil && !empty {
			return Term{}, p.errorf(p.rr.pos(), "internal: property list subject")
		}
		return s, err
	case c == ':' || isPNCharsBase(c):
		return p.prefixedName()
	}
	return Term{}, p.errorf(p.rr.pos(), "expected a subject (IRI, prefixed name, blank node or collection), found %s", describe(p.rr.peek()))
}

// predicateObjectList parses "verb objectList (; (verb objectList)?)*" (Turtle §2.3: a
// trailing ';' is allowed, as before ']' or '.').
func (p *turtleParser) predicateObjectList(s Term) error {
	for {
		p.skipWS()
		pr, err := p.verb()
		if err != nil {
			return err
		}
		if err := p.objectList(s, pr); err != nil {
			return err
		}
		p.skipWS()
		if p.rr.peek() != ';' {
			return nil
		}
		for p.rr.peek() == ';' {
			p.rr.next()
			p.skipWS()
		}
		if !p.startsVerb() {
			return nil
		}
	}
}

func (p *turtleParser) verb() (Term, error) {
	at := p.rr.pos()
	c := p.rr.peek()
	if c == 'a' {
		if n := p.rr.peekAt(1); !isPNChars(n) && n != ':' && n != '.' {
			p.rr.next()
			return IRI(RDFType), nil
		}
	}
	switch {
	case c == '<':
		return p.iriRef()
	case c == ':' || isPNCharsBase(c):
		return p.prefixedName()
	}
	return Term{}, p.errorf(at, "expected a predicate (IRI, prefixed name or 'a'), found %s", describe(c))
}

func (p *turtleParser) objectList(s, pr Term) error {
	for {
		o, err := p.object()
		if err != nil {
			return err
		}
		if err := p.emit(s, pr, o); err != nil {
			return err
		}
		p.skipWS()
		if p.rr.peek() != ',' {
			return nil
		}
		p.rr.next()
	}
}

func (p *turtleParser) object() (Term, error) {
	p.skipWS()
	at := p.rr.pos()
	if t, ok, err := p.node(); ok {
		return t, err
	}
	switch c := p.rr.peek(); {
	case c == '[':
		o, _, err := p.blankNodePropertyList()
		return o, err
	case c == '"' || c == '\'':
		return p.literal()
	case c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.' && isDigit(p.rr.peekAt(1)):
		return p.number()
	case c == ':' || isPNCharsBase(c):
		if w, ok := p.peekKeyword(); ok && (w == "true" || w == "false") {
			p.consume(len(w))
			return Literal(w, XSDBoolean, ""), nil
		}
		return p.prefixedName()
	}
	return Term{}, p.errorf(at, "expected an object (IRI, prefixed name, blank node, literal or collection), found %s", describe(p.rr.peek()))
}

// blankNodePropertyList parses "[ predicateObjectList ]" or "[]", emitting its triples, and
// returns the node; empty reports "[]".
func (p *turtleParser) blankNodePropertyList() (Term, bool, error) {
	if p.depth++; p.depth > maxNesting {
		return Term{}, false, p.errorf(p.rr.pos(), "more than %d nested [ ] or ( )", maxNesting)
	}
	defer func() { p.depth-- }()
	p.rr.next() // [
	node := p.blanks.fresh()
	p.skipWS()
	if p.rr.peek() == ']' {
		p.rr.next()
		return node, true, nil
	}
	if err := p.predicateObjectList(node); err != nil {
		return Term{}, false, err
	}
	if err := p.expect(']', "']' closing the blank node"); err != nil {
		return Term{}, false, err
	}
	return node, false, nil
}

// collection parses "( object* )" into an rdf:first/rdf:rest list (Turtle §2.8), emitting
// its cells as it goes; "()" is rdf:nil.
func (p *turtleParser) collection() (Term, error) {
	if p.depth++; p.depth > maxNesting {
		return Term{}, p.errorf(p.rr.pos(), "more than %d nested [ ] or ( )", maxNesting)
	}
	defer func() { p.depth-- }()
	p.rr.next() // (
	head, prev := Term{}, Term{}
	for {
		p.skipWS()
		if p.rr.peek() == ')' {
			p.rr.next()
			break
		}
		if p.rr.peek() == eof {
			return Term{}, p.errorf(p.rr.pos(), "expected ')' closing the collection, found end of input")
		}
		item, err := p.object()
		if err != nil {
			return Term{}, err
		}
		cell := p.blanks.fresh()
		if head.IsZero() {
			head = cell
		} else if err := p.emit(prev, IRI(rdfRest), cell); err != nil {
			return Term{}, err
		}
		if err := p.emit(cell, IRI(rdfFirst), item); err != nil {
			return Term{}, err
		}
		prev = cell
	}
	if head.IsZero() {
		return IRI(rdfNil), nil
	}
	return head, p.emit(prev, IRI(rdfRest), IRI(rdfNil))
}
