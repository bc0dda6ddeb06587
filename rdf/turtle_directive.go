package rdf

import "strings"

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
