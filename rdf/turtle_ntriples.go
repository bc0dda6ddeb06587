package rdf

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
