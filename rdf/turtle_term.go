package rdf

import "strings"

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
			if p.lineMode && !p.record && !hasScheme(b.String()) {
				// N-Triples §2.3, N-Quads §2.3: "Relative IRIs are not allowed" (W3C tests
				// nt-syntax-bad-uri-06..09, nq-syntax-bad-uri-01).
				return Term{}, p.errorf(start, "relative IRI <%s>: N-Triples and N-Quads IRIs are absolute", clip(b.String()))
			}
			return IRI(ResolveIRI(p.base, b.String())), nil
		case c == eof:
			return Term{}, p.errorf(at, "unterminated IRI (no '>')")
		case c == '\\':
			r, err := p.uchar(at)
			if err != nil {
				return Term{}, err
			}
			// A \u escape spells a character, it does not exempt one: a character IRIREF
			// excludes is excluded however it is written (W3C tests *-bad-uri-escape-01..03).
			// A record body is the exception: Term.NTriples writes a space some RDF/XML
			// files carry in an IRI that way, and ParseRecord reads it back.
			if !p.record && isIRIExcluded(r) {
				return Term{}, p.errorf(at, "Bad character in IRI (%s, written as an escape; a space is %%20)", describe(r))
			}
			b.WriteRune(r)
		case isIRIExcluded(c):
			return Term{}, p.errorf(at, "Bad character in IRI (%s)", describe(c))
		default:
			b.WriteRune(c)
		}
		if b.Len() > p.maxTerm {
			return Term{}, p.tooLong(start, "IRI")
		}
	}
}

// isIRIExcluded reports whether c is a character Turtle's IRIREF leaves out (§6.3:
// [^#x00-#x20<>"{}|^`\]).
func isIRIExcluded(c rune) bool { return c <= 0x20 || strings.ContainsRune("<>\"{}|^`\\", c) }

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
	if p.rr.peek() == '#' {
		// "p:o#x" is the name p:o and a comment (Turtle §6.3 PN_LOCAL has no '#'; W3C tests
		// comment_following_localName, comment_following_PNAME_NS): read so, with a warning,
		// since a publisher writing it more likely meant the '#' as part of the IRI.
		p.warnf(p.rr.pos(), "'#' right after the prefixed name %s:%s starts a comment, so the rest of the line was dropped (escape it as \\# if it belongs to the IRI)", prefix, clip(local))
	}
	if c := p.rr.peek(); c == '/' || c == '?' || c == '~' || c == '&' || c == '=' {
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
	value, err := p.quotedString()
	if err != nil {
		return Term{}, err
	}
	switch p.rr.peek() {
	case '@':
		lang, err := p.langTag()
		if err != nil {
			return Term{}, err
		}
		return Literal(value, "", lang), nil
	case '^':
		dt, err := p.datatype()
		if err != nil {
			return Term{}, err
		}
		return Literal(value, dt.Value, ""), nil
	}
	return Literal(value, "", ""), nil
}

// quotedString parses the quoted part of a literal (Turtle §6.3 STRING_LITERAL_QUOTE and its
// three siblings) and returns its unescaped value.
func (p *turtleParser) quotedString() (string, error) {
	at := p.rr.pos()
	q := p.rr.next()
	long := false
	if p.rr.peek() == q && p.rr.peekAt(1) == q {
		if p.lineMode {
			return "", p.errorf(at, "long strings are not N-Triples")
		}
		p.consume(2)
		long = true
	} else if p.lineMode && q != '"' {
		return "", p.errorf(at, "N-Triples strings are in double quotes")
	}
	var b strings.Builder
	for {
		cat := p.rr.pos()
		c := p.rr.next()
		switch {
		case c == eof:
			return "", p.errorf(at, "unterminated string")
		case c == q && !long:
			return b.String(), nil
		case c == q && long && p.rr.peek() == q && p.rr.peekAt(1) == q:
			// The first three quotes close the string: a quote inside it is followed by a
			// character that is not one (§6.3 STRING_LITERAL_LONG_QUOTE), so """a"""" is
			// the string "a" and a stray quote (W3C tests *-bad-string-06, -07).
			p.consume(2)
			return b.String(), nil
		case c == '\\':
			r, err := p.stringEscape(cat)
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
		case (c == '\n' || c == '\r') && !long:
			return "", p.errorf(cat, "line break in a string (escape it, or use a long string)")
		default:
			b.WriteRune(c)
		}
		if b.Len() > p.maxTerm {
			return "", p.tooLong(at, "string")
		}
	}
}

// stringEscape parses the rest of a string escape (Turtle §6.4 ECHAR or UCHAR) whose
// backslash, at cat, is consumed.
func (p *turtleParser) stringEscape(cat pos) (rune, error) {
	switch e := p.rr.peek(); e {
	case 't', 'b', 'n', 'r', 'f', '"', '\'', '\\':
		p.rr.next()
		return rune(map[rune]byte{'t': '\t', 'b': '\b', 'n': '\n', 'r': '\r', 'f': '\f', '"': '"', '\'': '\'', '\\': '\\'}[e]), nil
	}
	return p.uchar(cat)
}

// langTag parses "@tag" after a string (Turtle §6.3 LANGTAG) and returns the tag.
func (p *turtleParser) langTag() (string, error) {
	lat := p.rr.pos()
	p.rr.next()
	var t strings.Builder
	part := 0
	for {
		if t.Len() > p.maxTerm {
			return "", p.tooLong(lat, "language tag")
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
		return "", p.errorf(lat, "empty language tag")
	}
	return t.String(), nil
}

// datatype parses "^^iri" after a string (an IRI in <>, or in Turtle a prefixed name).
func (p *turtleParser) datatype() (Term, error) {
	dat := p.rr.pos()
	p.rr.next()
	if p.rr.peek() != '^' {
		return Term{}, p.errorf(dat, "expected '^^' before a datatype")
	}
	p.rr.next()
	switch c := p.rr.peek(); {
	case c == '<':
		return p.iriRef()
	case !p.lineMode && (c == ':' || isPNCharsBase(c)):
		return p.prefixedName()
	default:
		return Term{}, p.errorf(p.rr.pos(), "expected a datatype IRI after '^^', found %s", describe(c))
	}
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
