package rdf

import (
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
	maxTerm  int // Options.MaxTermBytes
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

// lineStatement parses one N-Triples or N-Quads statement (RDF 1.1 N-Triples §2, N-Quads §2).
func (p *turtleParser) lineStatement() error {
	s, err := p.subjectStrict()
	if err != nil {
		return err
	}
	p.skipWS()
	at := p.rr.pos()
	if p.rr.peek() != '<' {
		return p.errorf(at, "expected a predicate IRI, found %s", describe(p.rr.peek()))
	}
	pr, err := p.iriRef()
	if err != nil {
		return err
	}
	p.skipWS()
	at = p.rr.pos()
	var o Term
	switch p.rr.peek() {
	case '<':
		o, err = p.iriRef()
	case '_':
		o, err = p.blankLabel()
	case '"':
		o, err = p.literal()
	default:
		return p.errorf(at, "expected an object (IRI, blank node or literal), found %s", describe(p.rr.peek()))
	}
	if err != nil {
		return err
	}
	p.skipWS()
	if p.format == NQuads && p.rr.peek() != '.' {
		if _, err := p.subjectStrict(); err != nil { // the graph label, merged away
			return err
		}
	}
	if err := p.expect('.', "'.' at the end of the statement"); err != nil {
		return err
	}
	return p.emit(s, pr, o)
}

func (p *turtleParser) subjectStrict() (Term, error) {
	p.skipWS()
	switch p.rr.peek() {
	case '<':
		return p.iriRef()
	case '_':
		return p.blankLabel()
	}
	return Term{}, p.errorf(p.rr.pos(), "expected an IRI or blank node, found %s", describe(p.rr.peek()))
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
		if s.IsLiteral() || s.Kind == KindBlank && strings.HasPrefix(s.Value, p.blanks.prefix+"g") {
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

// atDirective parses "@prefix p: <iri> ." or "@base <iri> ." (Turtle §2.4, §6.5).
func (p *turtleParser) atDirective() error {
	at := p.rr.pos()
	p.rr.next()
	var b strings.Builder
	for c := p.rr.peek(); (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && b.Len() <= 16; c = p.rr.peek() {
		b.WriteRune(p.rr.next())
	}
	switch b.String() {
	case "prefix":
		return p.prefixDirective(true)
	case "base":
		return p.baseDirective(true)
	}
	return p.errorf(at, "unknown directive @%s (expected @prefix or @base)", b.String())
}

func (p *turtleParser) prefixDirective(dot bool) error {
	p.skipWS()
	at := p.rr.pos()
	var prefix string
	if p.rr.peek() != ':' {
		if !isPNCharsBase(p.rr.peek()) {
			return p.errorf(at, "expected a prefix name ending in ':', found %s", describe(p.rr.peek()))
		}
		var err error
		if prefix, err = p.nameRun(isPNChars); err != nil {
			return err
		}
	}
	if p.rr.peek() != ':' {
		return p.errorf(p.rr.pos(), "expected ':' after the prefix name %q, found %s", prefix, describe(p.rr.peek()))
	}
	p.rr.next()
	p.skipWS()
	if p.rr.peek() != '<' {
		return p.errorf(p.rr.pos(), "expected the prefix's IRI in <>, found %s", describe(p.rr.peek()))
	}
	iri, err := p.iriRef()
	if err != nil {
		return err
	}
	p.prefixes[prefix] = iri.Value
	if dot {
		return p.expect('.', "'.' after @prefix")
	}
	return nil
}

func (p *turtleParser) baseDirective(dot bool) error {
	p.skipWS()
	if p.rr.peek() != '<' {
		return p.errorf(p.rr.pos(), "expected the base IRI in <>, found %s", describe(p.rr.peek()))
	}
	iri, err := p.iriRef()
	if err != nil {
		return err
	}
	p.base = iri.Value
	if dot {
		return p.expect('.', "'.' after @base")
	}
	return nil
}

func (p *turtleParser) startsVerb() bool {
	c := p.rr.peek()
	return c == '<' || c == ':' || isPNCharsBase(c)
}

// subject parses a Turtle subject: IRI, prefixed name, blank node label, [] or a collection.
func (p *turtleParser) subject() (Term, error) {
	p.skipWS()
	switch c := p.rr.peek(); {
	case c == '<':
		return p.iriRef()
	case c == '_':
		return p.blankLabel()
	case c == '(':
		return p.collection()
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
	switch c := p.rr.peek(); {
	case c == '<':
		return p.iriRef()
	case c == '_':
		return p.blankLabel()
	case c == '(':
		return p.collection()
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

// iriRef parses "<...>" (Turtle §6.3 IRIREF, with \u and \U escapes) and resolves it against
// the base (RFC 3986 §5.2).
func (p *turtleParser) iriRef() (Term, error) {
	start := p.rr.pos()
	p.rr.next() // <
	var b strings.Builder
	for {
		at := p.rr.pos()
		c := p.rr.next()
		switch {
		case c == '>':
			return IRI(ResolveIRI(p.base, b.String())), nil
		case c == eof:
			return Term{}, p.errorf(at, "unterminated IRI (no '>')")
		case c == '\\':
			r, err := p.uchar(at)
			if err != nil {
				return Term{}, err
			}
			// An escaped character N-Triples forbids in an IRI is taken (WriteNTriples
			// writes IRIs from RDF/XML and JSON-LD that hold a space that way).
			b.WriteRune(r)
		case c <= 0x20 || strings.ContainsRune("<>\"{}|^`", c):
			return Term{}, p.errorf(at, "Bad character in IRI (%s)", describe(c))
		default:
			b.WriteRune(c)
		}
		if b.Len() > p.maxTerm {
			return Term{}, p.tooLong(start, "IRI")
		}
	}
}

// uchar parses the rest of \uXXXX or \UXXXXXXXX; the backslash is consumed.
func (p *turtleParser) uchar(at pos) (rune, error) {
	n := 0
	switch p.rr.peek() {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, p.errorf(at, "bad escape \\%s (only \\u and \\U here)", string(p.rr.peek()))
	}
	p.rr.next()
	var v rune
	for i := 0; i < n; i++ {
		d := hexVal(p.rr.peek())
		if d < 0 {
			return 0, p.errorf(p.rr.pos(), "bad hex digit %s in \\%c escape", describe(p.rr.peek()), map[int]rune{4: 'u', 8: 'U'}[n])
		}
		p.rr.next()
		v = v<<4 | rune(d)
	}
	if v > 0x10FFFF || v >= 0xD800 && v <= 0xDFFF {
		return 0, p.errorf(at, "escape \\U%08X is not a Unicode scalar value", v)
	}
	return v, nil
}

func hexVal(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// blankLabel parses "_:label" (Turtle §6.3 BLANK_NODE_LABEL).
func (p *turtleParser) blankLabel() (Term, error) {
	at := p.rr.pos()
	p.rr.next() // _
	if p.rr.peek() != ':' {
		return Term{}, p.errorf(at, "expected ':' after '_' of a blank node label")
	}
	p.rr.next()
	c := p.rr.peek()
	if !isPNCharsU(c) && !isDigit(c) {
		return Term{}, p.errorf(p.rr.pos(), "bad blank node label start %s", describe(c))
	}
	label, err := p.nameRun(isPNChars)
	if err != nil {
		return Term{}, err
	}
	return p.blanks.label(label), nil
}

// nameRun consumes a name: the first rune (already checked) and then runes in ok or '.', never
// ending with '.' (a final '.' ends the statement). A name over the term cap is an error.
func (p *turtleParser) nameRun(ok func(rune) bool) (string, error) {
	at := p.rr.pos()
	var b strings.Builder
	b.WriteRune(p.rr.next())
	for {
		if b.Len() > p.maxTerm {
			return "", p.tooLong(at, "name")
		}
		c := p.rr.peek()
		if ok(c) {
			b.WriteRune(p.rr.next())
			continue
		}
		if c != '.' {
			return b.String(), nil
		}
		k := 1
		for p.rr.peekAt(k) == '.' {
			k++
			if k > p.maxTerm {
				return "", p.tooLong(at, "name")
			}
		}
		if !ok(p.rr.peekAt(k)) {
			return b.String(), nil
		}
		for ; k > 0; k-- {
			b.WriteRune(p.rr.next())
		}
	}
}

// prefixedName parses "prefix:local" (Turtle §6.3 PNAME_LN, PN_LOCAL with %XX and \-escapes)
// and expands it with the declared prefix.
func (p *turtleParser) prefixedName() (Term, error) {
	at := p.rr.pos()
	var prefix string
	if p.rr.peek() != ':' {
		var err error
		if prefix, err = p.nameRun(isPNChars); err != nil {
			return Term{}, err
		}
	}
	if p.rr.peek() != ':' {
		return Term{}, p.errorf(p.rr.pos(), "expected ':' in the prefixed name %q, found %s", prefix, describe(p.rr.peek()))
	}
	p.rr.next()
	ns, ok := p.prefixes[prefix]
	if !ok {
		return Term{}, p.errorf(at, "undefined prefix %q", prefix)
	}
	local, err := p.localName()
	if err != nil {
		return Term{}, err
	}
	if c := p.rr.peek(); c == '/' || c == '?' || c == '#' || c == '~' || c == '&' || c == '=' {
		return Term{}, p.errorf(p.rr.pos(), "%s is not allowed in the local part of the prefixed name %s:%s (escape it as \\%c or write the full IRI)", describe(c), prefix, local, c)
	}
	return IRI(ns + local), nil
}

func (p *turtleParser) localName() (string, error) {
	start := p.rr.pos()
	var b strings.Builder
	first := true
	for {
		if b.Len() > p.maxTerm {
			return "", p.tooLong(start, "prefixed name")
		}
		at := p.rr.pos()
		c := p.rr.peek()
		switch {
		case c == '%':
			h1, h2 := p.rr.peekAt(1), p.rr.peekAt(2)
			if hexVal(h1) < 0 || hexVal(h2) < 0 {
				return "", p.errorf(at, "'%%' in a prefixed name must be followed by two hex digits")
			}
			p.consume(3)
			b.WriteRune('%')
			b.WriteRune(h1)
			b.WriteRune(h2)
		case c == '\\':
			e := p.rr.peekAt(1)
			if !strings.ContainsRune("_~.-!$&'()*+,;=/?#@%", e) {
				return "", p.errorf(at, "bad escape \\%s in a prefixed name", string(e))
			}
			p.consume(2)
			b.WriteRune(e)
		case isPNChars(c) && (!first || isPNCharsU(c) || isDigit(c)) || c == ':':
			p.rr.next()
			b.WriteRune(c)
		case c == '.' && !first:
			k := 1
			for p.rr.peekAt(k) == '.' {
				if k++; k > p.maxTerm {
					return "", p.tooLong(start, "prefixed name")
				}
			}
			if n := p.rr.peekAt(k); !isPNChars(n) && n != ':' && n != '%' && n != '\\' {
				return b.String(), nil
			}
			for ; k > 0; k-- {
				b.WriteRune(p.rr.next())
			}
		default:
			return b.String(), nil
		}
		first = false
	}
}

// literal parses a quoted string (four quote forms; in N-Triples only "...") with an optional
// @lang or ^^datatype (Turtle §2.5.1, §6.3).
func (p *turtleParser) literal() (Term, error) {
	at := p.rr.pos()
	q := p.rr.next()
	long := false
	if p.rr.peek() == q && p.rr.peekAt(1) == q {
		if p.lineMode {
			return Term{}, p.errorf(at, "long strings are not N-Triples")
		}
		p.consume(2)
		long = true
	} else if p.lineMode && q != '"' {
		return Term{}, p.errorf(at, "N-Triples strings are in double quotes")
	}
	var b strings.Builder
	for {
		cat := p.rr.pos()
		c := p.rr.next()
		switch {
		case c == eof:
			return Term{}, p.errorf(at, "unterminated string")
		case c == q && !long:
			goto suffix
		case c == q && long && p.rr.peek() == q && p.rr.peekAt(1) == q:
			for p.rr.peekAt(2) == q { // quotes just before the closing three are content
				b.WriteRune(p.rr.next())
			}
			p.consume(2)
			goto suffix
		case c == '\\':
			e := p.rr.peek()
			switch e {
			case 't', 'b', 'n', 'r', 'f', '"', '\'', '\\':
				p.rr.next()
				b.WriteByte(map[rune]byte{'t': '\t', 'b': '\b', 'n': '\n', 'r': '\r', 'f': '\f', '"': '"', '\'': '\'', '\\': '\\'}[e])
			default:
				r, err := p.uchar(cat)
				if err != nil {
					return Term{}, err
				}
				b.WriteRune(r)
			}
		case (c == '\n' || c == '\r') && !long:
			return Term{}, p.errorf(cat, "line break in a string (escape it, or use a long string)")
		default:
			b.WriteRune(c)
		}
		if b.Len() > p.maxTerm {
			return Term{}, p.tooLong(at, "string")
		}
	}
suffix:
	value := b.String()
	switch p.rr.peek() {
	case '@':
		lat := p.rr.pos()
		p.rr.next()
		var t strings.Builder
		part := 0
		for {
			if t.Len() > p.maxTerm {
				return Term{}, p.tooLong(lat, "language tag")
			}
			c := p.rr.peek()
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || part > 0 && isDigit(c) {
				t.WriteRune(p.rr.next())
				continue
			}
			if c == '-' && t.Len() > 0 && p.rr.peekAt(1) != eof && (isDigit(p.rr.peekAt(1)) || isASCIILetter(p.rr.peekAt(1))) {
				t.WriteRune(p.rr.next())
				part++
				continue
			}
			break
		}
		if t.Len() == 0 {
			return Term{}, p.errorf(lat, "empty language tag")
		}
		return Literal(value, "", t.String()), nil
	case '^':
		dat := p.rr.pos()
		p.rr.next()
		if p.rr.peek() != '^' {
			return Term{}, p.errorf(dat, "expected '^^' before a datatype")
		}
		p.rr.next()
		var dt Term
		var err error
		switch c := p.rr.peek(); {
		case c == '<':
			dt, err = p.iriRef()
		case !p.lineMode && (c == ':' || isPNCharsBase(c)):
			dt, err = p.prefixedName()
		default:
			return Term{}, p.errorf(p.rr.pos(), "expected a datatype IRI after '^^', found %s", describe(c))
		}
		if err != nil {
			return Term{}, err
		}
		return Literal(value, dt.Value, ""), nil
	}
	return Literal(value, "", ""), nil
}

// number parses an INTEGER, DECIMAL or DOUBLE (Turtle §2.5.2), keeping the lexical form.
func (p *turtleParser) number() (Term, error) {
	at := p.rr.pos()
	var b strings.Builder
	if c := p.rr.peek(); c == '+' || c == '-' {
		b.WriteRune(p.rr.next())
	}
	digits := func() int {
		n := 0
		for isDigit(p.rr.peek()) && b.Len() <= p.maxTerm {
			b.WriteRune(p.rr.next())
			n++
		}
		return n
	}
	isExp := func(k int) bool {
		if c := p.rr.peekAt(k); c != 'e' && c != 'E' {
			return false
		}
		c := p.rr.peekAt(k + 1)
		return isDigit(c) || (c == '+' || c == '-') && isDigit(p.rr.peekAt(k+2))
	}
	exponent := func() {
		b.WriteRune(p.rr.next())
		if c := p.rr.peek(); c == '+' || c == '-' {
			b.WriteRune(p.rr.next())
		}
		digits()
	}
	intDigits := digits()
	dt := XSDInteger
	if p.rr.peek() == '.' && (isDigit(p.rr.peekAt(1)) || intDigits > 0 && isExp(1)) {
		b.WriteRune(p.rr.next())
		digits()
		dt = XSDDecimal
	}
	if (intDigits > 0 || dt == XSDDecimal) && isExp(0) {
		exponent()
		dt = XSDDouble
	}
	if b.Len() > p.maxTerm {
		return Term{}, p.tooLong(at, "number")
	}
	if intDigits == 0 && dt == XSDInteger {
		return Term{}, p.errorf(at, "expected a number, found %s", describe(p.rr.peek()))
	}
	return Literal(b.String(), dt, ""), nil
}

func isDigit(c rune) bool       { return c >= '0' && c <= '9' }
func isASCIILetter(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isPNCharsBase is Turtle's PN_CHARS_BASE.
func isPNCharsBase(c rune) bool {
	switch {
	case isASCIILetter(c):
		return true
	case c < 0xC0:
		return false
	case c <= 0xD6, c >= 0xD8 && c <= 0xF6, c >= 0xF8 && c <= 0x2FF, c >= 0x370 && c <= 0x37D,
		c >= 0x37F && c <= 0x1FFF, c >= 0x200C && c <= 0x200D, c >= 0x2070 && c <= 0x218F,
		c >= 0x2C00 && c <= 0x2FEF, c >= 0x3001 && c <= 0xD7FF, c >= 0xF900 && c <= 0xFDCF,
		c >= 0xFDF0 && c <= 0xFFFD, c >= 0x10000 && c <= 0xEFFFF:
		return true
	}
	return false
}

// isPNCharsU is PN_CHARS_U: PN_CHARS_BASE or '_'.
func isPNCharsU(c rune) bool { return c == '_' || isPNCharsBase(c) }

// isPNChars is PN_CHARS.
func isPNChars(c rune) bool {
	return isPNCharsU(c) || c == '-' || isDigit(c) || c == 0xB7 ||
		c >= 0x300 && c <= 0x36F || c >= 0x203F && c <= 0x2040
}
