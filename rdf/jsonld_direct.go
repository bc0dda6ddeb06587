package rdf

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/piprate/json-gold/ld"
)

// jsonldDirect turns on the direct conversion of expanded node objects (directNode); tests turn
// it off to compare with json-gold's Node Map Generation and Deserialize JSON-LD to RDF.
var jsonldDirect = true

// directConverter turns an expanded JSON-LD node object into triples without json-gold's node
// map (JSON-LD 1.1 API §7.2 Node Map Generation and §8.4 Deserialize JSON-LD to RDF, as
// json-gold v0.9.1 implements them, graphs merged): on a chain of blank nodes those two were
// 60% of json-gold's time and kept every blank node label of the document in its identifier
// issuer. It handles node objects whose properties hold node objects (embedded or references),
// @type, and value objects of a string, boolean or number (with @language or @type); anything
// else (@list, @reverse, @graph, @included, @json, @direction) is left to json-gold (ok false),
// so the direct path and json-gold give the same triples (TestJSONLDDirectSameAsJSONGold, on
// the W3C toRdf suite json-gold ships and the corpus's JSON-LD files).
//
// Blank nodes: a labelled one "_:x" becomes blankScope label "e"+x ("h"+hex when x has other
// than [A-Za-z0-9_.-]), the same in every node object, with no table of labels; one without
// @id gets a fresh label from the document's issuer ("b"+n), as json-gold's do. For json-gold,
// labelled blank nodes are first written as IRIs under marker (hideBlankLabels), which json-gold
// passes through, and turned back on delivery, so that both paths name a node alike.
type directConverter struct {
	issuer *ld.IdentifierIssuer
	blanks *blankScope
	marker string          // "urn:x-harvester-blank-<random>:"
	valid  map[string]bool // http(s) IRI -> ld.IsURL, json-gold's filter of IRIs
	langOK map[string]bool // language tag -> json-gold's filter of tags
	out    []Triple        // the node object's triples, delivered when it is all handled
	stack  []pendingNode   // node objects still to convert
	tmp    ld.Literal      // for ld.InvalidNode
}

// pendingNode is a node object to convert and its subject.
type pendingNode struct {
	n map[string]any
	s Term
}

func newDirectConverter(issuer *ld.IdentifierIssuer, blanks *blankScope) *directConverter {
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	return &directConverter{issuer: issuer, blanks: blanks, marker: "urn:x-harvester-blank-" + hex.EncodeToString(nonce[:]) + ":",
		valid: map[string]bool{}, langOK: map[string]bool{}}
}

// labelled returns the term of the document's blank node label l ("_:x").
func (c *directConverter) labelled(l string) Term {
	x := l[2:]
	for i := 0; i < len(x); i++ {
		if b := x[i]; !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '.' || b == '-') {
			return c.blanks.label("h" + hex.EncodeToString([]byte(x)))
		}
	}
	if x == "" {
		return c.blanks.label("h")
	}
	return c.blanks.label("e" + x)
}

// validIRI is json-gold's check of an IRI (an http(s) IRI must pass ld.IsURL, a regular
// expression that was most of the direct conversion's time on a catalog of distinct URLs),
// remembered for the document (up to 100,000 entries) by authority: ld.IsURL's expression is
// schema, user, host, port and a path of [/?#] then no white space, so for an IRI with no '@'
// and no white space, whose authority ends at the first of /?#, the host and port take exactly
// the authority, and the IRI passes exactly when "scheme://authority/" does. Other IRIs are
// checked whole.
func (c *directConverter) validIRI(iri string) bool {
	var rest string
	switch {
	case strings.HasPrefix(iri, "http://"):
		rest = iri[len("http://"):]
	case strings.HasPrefix(iri, "https://"):
		rest = iri[len("https://"):]
	default:
		return true
	}
	key := iri
	if !strings.ContainsAny(rest, "@ \t\n\v\f\r") {
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		key = iri[:len(iri)-len(rest)+end] + "/"
	}
	ok, seen := c.valid[key]
	if !seen {
		if len(c.valid) >= 100_000 {
			clear(c.valid)
		}
		ok = ld.IsURL(key)
		c.valid[key] = ok
	}
	return ok
}

// node converts the expanded node object n and the node objects embedded in it, appending to
// c.out; ok is false when one of them has what directConverter leaves to json-gold (c.out is
// then to be dropped).
func (c *directConverter) node(n map[string]any) bool {
	s, ok := c.subject(n)
	if !ok {
		return false
	}
	c.stack = append(c.stack[:0], pendingNode{n, s})
	for len(c.stack) > 0 {
		top := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		if !c.properties(top.s, top.n) {
			return false
		}
	}
	return true
}

// subject returns n's subject: its @id (the zero Term for a relative IRI, whose triples
// json-gold drops), or a fresh blank node (n is not changed).
func (c *directConverter) subject(n map[string]any) (Term, bool) {
	v, has := n["@id"]
	if !has {
		return c.blanks.label(c.issuer.GetId("")[2:]), true
	}
	id, ok := v.(string)
	switch {
	case !ok:
		return Term{}, false
	case strings.HasPrefix(id, "_:"):
		return c.labelled(id), true
	case ld.IsRelativeIri(id):
		return Term{}, true
	}
	return IRI(id), true
}

// properties adds n's triples with subject s (none when s is zero) to c.out, and pushes its
// embedded node objects.
func (c *directConverter) properties(s Term, n map[string]any) bool {
	for k, v := range n {
		switch {
		case k == "@id" || k == "@index":
			continue
		case k == "@type":
			types, ok := v.([]any)
			if !ok {
				return false
			}
			for _, t := range types {
				ts, ok := t.(string)
				if !ok {
					return false
				}
				o := IRI(ts)
				if strings.HasPrefix(ts, "_:") {
					o = c.labelled(ts)
				}
				c.add(s, RDFType, o, c.validIRI(ts))
			}
			continue
		case strings.HasPrefix(k, "@"):
			return false // @reverse, @graph, @included… (json-gold)
		}
		values, ok := v.([]any)
		if !ok {
			return false
		}
		skip := strings.HasPrefix(k, "_:") || ld.IsRelativeIri(k) // json-gold drops these
		for _, x := range values {
			m, ok := x.(map[string]any)
			if !ok {
				return false
			}
			if _, ok := m["@value"]; ok {
				o, valid, ok := c.literal(m)
				if !ok {
					return false
				}
				if !skip {
					c.add(s, k, o, valid)
				}
				continue
			}
			for mk := range m {
				if mk == "@list" || mk == "@set" || mk == "@graph" || mk == "@reverse" || mk == "@included" {
					return false
				}
			}
			o, ok := c.subject(m)
			if !ok {
				return false
			}
			if _, hasID := m["@id"]; len(m) > 1 || !hasID && len(m) > 0 { // more than its @id
				c.stack = append(c.stack, pendingNode{m, o})
			}
			if !skip && !o.IsZero() {
				c.add(s, k, o, o.Kind != KindIRI || c.validIRI(o.Value))
			}
		}
	}
	return true
}

// add adds the triple (s, p, o) when s is not zero and p and o pass json-gold's filter.
func (c *directConverter) add(s Term, p string, o Term, valid bool) {
	if s.IsZero() || !valid || (s.Kind == KindIRI && !c.validIRI(s.Value)) || !c.validIRI(p) {
		return
	}
	c.out = append(c.out, Triple{S: s, P: IRI(p), O: o})
}

// literal converts a value object as json-gold's objectToRDF does; valid is false when
// json-gold's filter drops it (its language or datatype), ok false for what is left to
// json-gold (@json, @direction, a value of another type).
func (c *directConverter) literal(m map[string]any) (Term, bool, bool) {
	var dt, lang string
	for k, v := range m {
		switch k {
		case "@value", "@index":
		case "@type":
			s, ok := v.(string)
			if !ok || s == "@json" {
				return Term{}, false, false
			}
			dt = s
		case "@language":
			s, ok := v.(string)
			if !ok {
				return Term{}, false, false
			}
			lang = s
		default:
			return Term{}, false, false
		}
	}
	var value string
	switch v := m["@value"].(type) {
	case string:
		value = v
		switch {
		case lang != "" && dt == "":
			dt = RDFLangString
		case dt == "":
			dt = XSDString
		}
	case bool:
		value = strconv.FormatBool(v)
		if dt == "" {
			dt = ld.XSDBoolean
		}
	case float64:
		if v != float64(int64(v)) || dt == ld.XSDDouble {
			value = ld.GetCanonicalDouble(v)
			if dt == "" {
				dt = ld.XSDDouble
			}
		} else {
			value = fmt.Sprintf("%d", int64(v))
			if dt == "" {
				dt = ld.XSDInteger
			}
		}
	default:
		return Term{}, false, false
	}
	valid := c.validIRI(dt)
	if lang != "" {
		ok, seen := c.langOK[lang]
		if !seen {
			c.tmp = ld.Literal{Value: "", Datatype: "", Language: lang}
			ok = !ld.InvalidNode(c.tmp)
			if len(c.langOK) < 10_000 {
				c.langOK[lang] = ok
			}
		}
		valid = valid && ok
	}
	return Literal(value, dt, lang), valid, true
}

// convert converts an expanded top-level element (a node object, or an array of them), in
// c.out; ok is false when json-gold is to convert it.
func (c *directConverter) convert(expanded any) bool {
	c.out = c.out[:0]
	switch v := expanded.(type) {
	case map[string]any:
		return c.node(v)
	case []any:
		for _, x := range v {
			m, ok := x.(map[string]any)
			if !ok || !c.node(m) {
				return false
			}
		}
		return true
	}
	return false
}

// hideBlankLabels rewrites, in an expanded JSON-LD value, each labelled blank node in an @id
// or a node's @type as an IRI under c.marker, so that json-gold keeps its label (term turns it
// back).
func (c *directConverter) hideBlankLabels(v any) {
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			c.hideBlankLabels(x)
		}
	case map[string]any:
		_, isValue := v["@value"]
		for k, x := range v {
			switch {
			case isValue:
			case k == "@id":
				if s, ok := x.(string); ok && strings.HasPrefix(s, "_:") {
					v[k] = c.marker + hex.EncodeToString([]byte(s[2:]))
				}
			case k == "@type":
				if ts, ok := x.([]any); ok {
					for i, t := range ts {
						if s, ok := t.(string); ok && strings.HasPrefix(s, "_:") {
							ts[i] = c.marker + hex.EncodeToString([]byte(s[2:]))
						}
					}
				}
			default:
				c.hideBlankLabels(x)
			}
		}
	}
}

// term is termFromLD, with the IRIs hideBlankLabels made turned back into blank nodes.
func (c *directConverter) term(n ld.Node) Term {
	t := termFromLD(n, c.blanks)
	if t.Kind == KindIRI && strings.HasPrefix(t.Value, c.marker) {
		if b, err := hex.DecodeString(t.Value[len(c.marker):]); err == nil {
			return c.labelled("_:" + string(b))
		}
	}
	return t
}
