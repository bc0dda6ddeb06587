package rdf

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"
)

// propElt is a property element's start tag, read: its predicate (rdf:li numbered), its
// subject and scope, its rdf: syntax attributes (nil when absent) and its property attributes.
type propElt struct {
	t                                         xml.StartElement
	s                                         Term
	pred                                      string
	ctx                                       xmlCtx
	resource, nodeID, datatype, parseType, id *string
	propAttrs                                 []xml.Attr
}

// propertyElement handles a property element of subject s whose start tag was just read.
func (p *rdfxmlParser) propertyElement(t xml.StartElement, s Term, ctx xmlCtx, li *int) error {
	if t.Name.Space == "" {
		return p.errorf("element <%s> has no namespace", t.Name.Local)
	}
	p.checkElement(t, ctx, false)
	e, err := p.propertyStart(t, s, ctx, li)
	if err != nil {
		return err
	}
	if e.parseType != nil {
		return p.parseTypeProperty(e)
	}
	if e.resource != nil || e.nodeID != nil || len(e.propAttrs) > 0 {
		return p.emptyProperty(e)
	}
	return p.valueProperty(e)
}

// propertyStart reads a property element's name and attributes; rdf:about is an error.
func (p *rdfxmlParser) propertyStart(t xml.StartElement, s Term, ctx xmlCtx, li *int) (*propElt, error) {
	e := &propElt{t: t, s: s, ctx: ctx, pred: name(t.Name)}
	if e.pred == rdfNS+"li" {
		*li++
		e.pred = rdfNS + "_" + strconv.Itoa(*li)
	}
	for i, a := range t.Attr {
		local, ok := rdfAttr(a)
		if !ok {
			if isPropertyAttr(a) {
				e.propAttrs = append(e.propAttrs, a)
			}
			continue
		}
		v := &t.Attr[i].Value
		switch local {
		case "resource":
			e.resource = v
		case "nodeID":
			e.nodeID = v
		case "datatype":
			e.datatype = v
		case "parseType":
			e.parseType = v
		case "ID":
			e.id = v
		case "about":
			return nil, p.errorf("rdf:about on a property element <%s>", t.Name.Local)
		case "bagID", "aboutEach", "aboutEachPrefix": // W3C test rdfms-rdf-id-error007
			return nil, p.errorf("rdf:%s was removed from RDF (2004)", local)
		}
	}
	if e.parseType != nil {
		// A parseType property element takes rdf:ID and nothing else (§7.2.18-20): its object
		// is its content, so rdf:resource, rdf:nodeID, rdf:datatype or a property attribute
		// beside it would be a second object, or dropped (W3C tests
		// rdfms-empty-property-elements-error001, -002).
		for _, other := range []struct {
			name string
			v    *string
		}{{"rdf:resource", e.resource}, {"rdf:nodeID", e.nodeID}, {"rdf:datatype", e.datatype}} {
			if other.v != nil {
				return nil, p.errorf("rdf:parseType=%q and %s on one property element <%s>", clip(*e.parseType), other.name, t.Name.Local)
			}
		}
		if len(e.propAttrs) > 0 {
			return nil, p.errorf("rdf:parseType=%q and the property attribute %s on one property element <%s>",
				clip(*e.parseType), name(e.propAttrs[0].Name), t.Name.Local)
		}
	}
	return e, nil
}

// emitProperty emits the triple of e with object o and, when e has rdf:ID, its reification
// (§7.3).
func (p *rdfxmlParser) emitProperty(e *propElt, o Term) error {
	if err := p.emit(e.s, IRI(e.pred), o); err != nil {
		return err
	}
	if e.id == nil {
		return nil
	}
	st := IRI(ResolveIRI(e.ctx.base, "#"+*e.id))
	for _, tr := range []Triple{
		{st, IRI(RDFType), IRI(rdfNS + "Statement")}, {st, IRI(rdfNS + "subject"), e.s},
		{st, IRI(rdfNS + "predicate"), IRI(e.pred)}, {st, IRI(rdfNS + "object"), o},
	} {
		if err := p.fn(tr); err != nil {
			return err
		}
	}
	return nil
}

// parseTypeProperty handles a property element with rdf:parseType (§7.2.18-20).
func (p *rdfxmlParser) parseTypeProperty(e *propElt) error {
	emit := func(o Term) error { return p.emitProperty(e, o) }
	switch *e.parseType {
	case "Resource":
		o := p.blanks.fresh()
		if err := emit(o); err != nil {
			return err
		}
		return p.propertiesUntilEnd(o, e.ctx)
	case "Collection":
		return p.collection(e.ctx, emit)
	default: // "Literal" and any other value (§7.2.20)
		lit, err := p.innerXML()
		if err != nil {
			return err
		}
		return emit(Literal(lit, rdfXMLLiteral, ""))
	}
}

// emptyProperty handles an emptyPropertyElt (§7.2.21): the element must be empty.
func (p *rdfxmlParser) emptyProperty(e *propElt) error {
	var o Term
	switch {
	case e.resource != nil && e.nodeID != nil:
		return p.errorf("rdf:resource and rdf:nodeID on one property element")
	case e.resource != nil:
		o = IRI(ResolveIRI(e.ctx.base, *e.resource))
	case e.nodeID != nil:
		o = p.blanks.label(*e.nodeID)
	default:
		o = p.blanks.fresh()
	}
	for _, a := range e.propAttrs {
		v := Literal(a.Value, "", e.ctx.lang)
		if name(a.Name) == RDFType {
			v = IRI(ResolveIRI(e.ctx.base, a.Value))
		}
		if err := p.emit(o, IRI(name(a.Name)), v); err != nil {
			return err
		}
	}
	if err := p.expectEnd(e.t); err != nil {
		return err
	}
	return p.emitProperty(e, o)
}

// valueProperty handles a property element holding a literal or one node element.
func (p *rdfxmlParser) valueProperty(e *propElt) error {
	var text strings.Builder
	var obj Term
	for {
		tok, err := p.tokenInElement(e.t.Name.Local)
		if err != nil {
			return err
		}
		switch c := tok.(type) {
		case xml.CharData:
			if text.Len()+len(c) > p.opts.maxTerm() {
				return p.errorf("the text of <%s> is longer than %d bytes, the term cap (the record size cap, --max-record-bytes)",
					e.t.Name.Local, p.opts.maxTerm())
			}
			text.Write(c)
		case xml.StartElement:
			if !obj.IsZero() {
				return p.errorf("Repeat node-elements inside property elements: %s", e.pred)
			}
			if strings.TrimSpace(text.String()) != "" {
				return p.errorf("text and a node element mixed in <%s>", e.t.Name.Local)
			}
			o, err := p.nodeElement(c, p.scope(e.ctx, c))
			if err != nil {
				return err
			}
			obj = o
			text.Reset()
		case xml.EndElement:
			if !obj.IsZero() {
				if strings.TrimSpace(text.String()) != "" {
					return p.errorf("text and a node element mixed in <%s>", e.t.Name.Local)
				}
				return p.emitProperty(e, obj)
			}
			dt := ""
			lang := e.ctx.lang
			if e.datatype != nil {
				dt, lang = ResolveIRI(e.ctx.base, *e.datatype), ""
			}
			return p.emitProperty(e, Literal(text.String(), dt, lang))
		}
	}
}

// propertiesUntilEnd reads property elements of s until the enclosing end tag.
func (p *rdfxmlParser) propertiesUntilEnd(s Term, ctx xmlCtx) error {
	li := 0
	for {
		tok, err := p.tokenIn("")
		if err != nil {
			return err
		}
		switch c := tok.(type) {
		case xml.StartElement:
			if err := p.propertyElement(c, s, p.scope(ctx, c), &li); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		case xml.CharData:
			if len(bytes.TrimSpace(c)) > 0 {
				return p.errorf("text %q where property elements are expected", clip(string(bytes.TrimSpace(c))))
			}
		}
	}
}

// collection reads node elements up to the end tag into an rdf:List (§7.2.19).
func (p *rdfxmlParser) collection(ctx xmlCtx, emit func(Term) error) error {
	var head, prev Term
	for {
		tok, err := p.tokenIn(" in a collection")
		if err != nil {
			return err
		}
		switch c := tok.(type) {
		case xml.StartElement:
			item, err := p.nodeElement(c, p.scope(ctx, c))
			if err != nil {
				return err
			}
			cell := p.blanks.fresh()
			if head.IsZero() {
				head = cell
			} else if err := p.emit(prev, IRI(rdfRest), cell); err != nil {
				return err
			}
			if err := p.emit(cell, IRI(rdfFirst), item); err != nil {
				return err
			}
			prev = cell
		case xml.EndElement:
			if head.IsZero() {
				return emit(IRI(rdfNil))
			}
			if err := p.emit(prev, IRI(rdfRest), IRI(rdfNil)); err != nil {
				return err
			}
			return emit(head)
		case xml.CharData:
			if len(bytes.TrimSpace(c)) > 0 {
				return p.errorf("text in a collection")
			}
		}
	}
}

// innerXML re-serializes the content up to the enclosing end tag (rdf:parseType="Literal").
// It is the content as encoding/xml writes it back, not Exclusive XML Canonicalization.
func (p *rdfxmlParser) innerXML() (string, error) {
	var b bytes.Buffer
	enc := xml.NewEncoder(&b)
	depth := 0
	for {
		tok, err := p.tokenIn(" in a literal")
		if err != nil {
			return "", err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			if depth == 0 {
				if err := enc.Flush(); err != nil {
					return "", err
				}
				return b.String(), nil
			}
			depth--
		}
		if err := enc.EncodeToken(xml.CopyToken(tok)); err != nil {
			return "", p.errorf("literal XML: %v", err)
		}
		if b.Len() > p.opts.maxTerm() {
			return "", p.errorf("an rdf:parseType=\"Literal\" literal longer than %d bytes, the term cap "+
				"(the record size cap, --max-record-bytes)", p.opts.maxTerm())
		}
	}
}
