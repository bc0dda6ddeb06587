package rdf

import (
	"encoding/xml"
	"fmt"
	"unicode"
)

// RDF/XML that the grammar (RDF 1.1 XML Syntax §7.2) refuses but that this parser reads
// leniently, as rdflib and rapper do for most of it: a harvest keeps the triples such a
// document plainly means and reports each problem as a Warning (Options.Warn), instead of
// failing the source. Of the W3C RDF/XML negative syntax tests, these are read leniently:
//
//   - an rdf: syntax name used as a node element (rdf:RDF, rdf:ID, rdf:about, rdf:li, … ;
//     §7.2.5 nodeElementURIs), read as a node of that type;
//   - an rdf: syntax name used as a property element (rdf:Description, rdf:RDF, rdf:ID, … ;
//     §7.2.14 propertyElementURIs), read as that property;
//   - rdf:li, rdf:RDF or rdf:Description as a property attribute (§7.2.6), dropped;
//   - an rdf:ID or rdf:nodeID value that is not an XML NCName (§7.2.23, §7.2.25), used as it is;
//   - an rdf:ID given twice for the same base (§5.3: "must not"), both kept.
//
// rdf:bagID, rdf:aboutEach and rdf:aboutEachPrefix (removed from RDF in 2004) on any element,
// two of rdf:about, rdf:ID and rdf:nodeID on one element, rdf:resource with rdf:nodeID,
// rdf:parseType with rdf:resource, rdf:nodeID, rdf:datatype or a property attribute, and
// malformed XML are still errors.

// rdfNames are sets of local names in the rdf: namespace.
type rdfNames map[string]bool

func namesOf(locals ...string) rdfNames {
	m := rdfNames{}
	for _, l := range locals {
		m[l] = true
	}
	return m
}

var (
	// syntaxNames are coreSyntaxTerms and oldTerms (§7.2.2, §7.2.4).
	syntaxNames = []string{"RDF", "ID", "about", "parseType", "resource", "nodeID", "datatype",
		"aboutEach", "aboutEachPrefix", "bagID"}
	notNodeElement     = namesOf(append(syntaxNames, "li")...)
	notPropertyElement = namesOf(append(syntaxNames, "Description")...)
	notPropertyAttr    = namesOf("li", "RDF", "Description")
)

// warnf reports a Warning at the token being handled, when the caller asked for them.
func (p *rdfxmlParser) warnf(format string, args ...any) {
	if p.opts.Warn != nil {
		p.opts.Warn(Warning{Line: p.last.line, Col: p.last.col, Msg: fmt.Sprintf(format, args...)})
	}
}

// checkElement warns about a node element (node true) or property element t that RDF/XML
// forbids, and about its attributes: see the list above.
func (p *rdfxmlParser) checkElement(t xml.StartElement, ctx xmlCtx, node bool) {
	if t.Name.Space == rdfNS {
		switch {
		case node && notNodeElement[t.Name.Local]:
			p.warnf("rdf:%s used as a node element (RDF/XML forbids it); read as a node of type rdf:%s",
				t.Name.Local, t.Name.Local)
		case !node && notPropertyElement[t.Name.Local]:
			p.warnf("rdf:%s used as a property element (RDF/XML forbids it); read as the property rdf:%s",
				t.Name.Local, t.Name.Local)
		}
	}
	for _, a := range t.Attr {
		if a.Name.Space == rdfNS && notPropertyAttr[a.Name.Local] {
			p.warnf("rdf:%s used as a property attribute (RDF/XML forbids it); dropped", a.Name.Local)
			continue
		}
		switch local, ok := rdfAttr(a); {
		case !ok:
		case local == "ID":
			p.checkID(a.Value, ctx)
		case local == "nodeID" && !isNCName(a.Value):
			p.warnf("rdf:nodeID %q is not an XML NCName; used as it is", clip(a.Value))
		}
	}
}

// checkID warns about an rdf:ID value that is not an NCName or that the document gave before
// for the same base.
func (p *rdfxmlParser) checkID(id string, ctx xmlCtx) {
	if !isNCName(id) {
		p.warnf("rdf:ID %q is not an XML NCName; used as it is", clip(id))
	}
	iri := ResolveIRI(ctx.base, "#"+id)
	if p.ids == nil {
		p.ids = map[string]bool{}
	}
	if p.ids[iri] {
		p.warnf("rdf:ID %q is given twice for the base %s (RDF/XML §5.3 forbids it)", clip(id), clip(ctx.base))
	}
	p.ids[iri] = true
}

// isNCName reports whether s is an XML NCName (Namespaces in XML 1.0 §3): a Name without ':'.
// Letters and '_' start it; letters, digits, '.', '-', '_', combining marks and extenders
// follow.
func isNCName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		start := c == '_' || unicode.IsLetter(c)
		switch {
		case start:
		case i == 0:
			return false
		case c == '.' || c == '-' || c == 0xB7 || unicode.IsDigit(c) || unicode.In(c, unicode.Mn, unicode.Mc, unicode.Lm):
		default:
			return false
		}
	}
	return true
}
