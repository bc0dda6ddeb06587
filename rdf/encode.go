package rdf

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// Encoder writes a graph to a stream group by group, so that a writer of a large graph (a
// catalog's page after page) holds only the group it writes: NewEncoder writes the document's
// head, each Encode one group of triples (typically one resource and the nodes it owns), and
// Close the document's tail. A blank node label is the same node in every group of one
// document. Encoders are not safe for concurrent use.
type Encoder interface {
	// Encode writes the triples ts (duplicates written once, in the order the syntax's
	// writer chooses). It returns the underlying writer's error, or an error for a triple the
	// syntax cannot carry (RDF/XML: a predicate with no XML local name).
	Encode(ts []Triple) error
	// Close writes the document's tail and flushes; it does not close the underlying writer.
	Close() error
}

// NewEncoder returns an Encoder of format f writing to w, with prefixes (a prefix name, such
// as "dcat", to its namespace IRI) used where the syntax has them:
//
//   - Turtle: every prefix declared at the head (@prefix), then one block per subject as
//     WriteTurtle writes them (rdf:type as "a" first, predicates sorted, objects joined by ",").
//   - N-Triples: one line per triple, as WriteNTriples.
//   - RDF/XML (RDF 1.1 XML Syntax): an rdf:RDF element declaring the prefixes, one
//     rdf:Description per subject (rdf:about, or rdf:nodeID for a blank node), a property
//     element per triple with rdf:resource, rdf:nodeID, or the literal's text with xml:lang or
//     rdf:datatype. A predicate outside the prefixes gets a namespace declared on its element
//     (ns0, ns1…). Characters XML 1.0 cannot carry (C0 controls other than tab, CR and LF) are
//     written as U+FFFD, the only lossy case.
//   - JSON-LD 1.1: {"@context": {prefixes}, "@graph": [...]} with one node object per subject
//     in the expanded value forms ({"@id"}, {"@value", "@language"|"@type"}), property names as
//     compact IRIs when a prefix covers them; JSON's escaping carries every string. These are
//     the node objects github.com/piprate/json-gold's FromRDF makes, written here because
//     FromRDF takes the whole dataset at once and an Encoder holds one group.
//
// Other formats are an error wrapping ErrUnsupportedFormat.
func NewEncoder(w io.Writer, f Format, prefixes map[string]string) (Encoder, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	switch f {
	case Turtle:
		e := &turtleEncoder{w: bw, names: newTurtleNames(prefixes)}
		keys := sortedKeys(prefixes)
		for _, p := range keys {
			fmt.Fprintf(bw, "@prefix %s: <%s> .\n", p, prefixes[p])
		}
		if len(keys) > 0 {
			bw.WriteString("\n")
		}
		return e, nil
	case NTriples:
		return &ntriplesEncoder{w: bw}, nil
	case RDFXML:
		return newRDFXMLEncoder(bw, prefixes), nil
	case JSONLD:
		return newJSONLDEncoder(bw, prefixes), nil
	}
	return nil, fmt.Errorf("%w for writing: %s", ErrUnsupportedFormat, f)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

type turtleEncoder struct {
	w     *bufio.Writer
	names *turtleNames
	body  strings.Builder
	last  int // the size of the last group written: the next one's buffer starts as large
}

func (e *turtleEncoder) Encode(ts []Triple) error {
	if len(ts) == 0 {
		return nil
	}
	e.body.Reset()
	e.body.Grow(e.last)
	e.names.writeSubjects(&e.body, sortedUnique(ts))
	e.body.WriteString("\n")
	e.last = e.body.Len()
	_, err := e.w.WriteString(e.body.String())
	return err
}

func (e *turtleEncoder) Close() error { return e.w.Flush() }

type ntriplesEncoder struct{ w *bufio.Writer }

func (e *ntriplesEncoder) Encode(ts []Triple) error {
	for _, t := range distinctTriples(ts) {
		if _, err := e.w.WriteString(t.NTriples()); err != nil {
			return err
		}
		if err := e.w.WriteByte('\n'); err != nil {
			return err
		}
	}
	return nil
}

func (e *ntriplesEncoder) Close() error { return e.w.Flush() }

type rdfxmlEncoder struct {
	w        *bufio.Writer
	prefixes []turtleNamespace // longest namespace first
}

func newRDFXMLEncoder(w *bufio.Writer, prefixes map[string]string) *rdfxmlEncoder {
	e := &rdfxmlEncoder{w: w}
	w.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rdf:RDF")
	fmt.Fprintf(w, "\n    xmlns:rdf=\"%s\"", rdfNS)
	for _, p := range sortedKeys(prefixes) {
		if p == "rdf" || !isNCName(p) || strings.HasPrefix(strings.ToLower(p), "xml") {
			continue
		}
		fmt.Fprintf(w, "\n    xmlns:%s=\"%s\"", p, xmlEscape(prefixes[p], true))
		e.prefixes = append(e.prefixes, turtleNamespace{prefix: p, iri: prefixes[p]})
	}
	e.prefixes = append(e.prefixes, turtleNamespace{prefix: "rdf", iri: rdfNS})
	sort.SliceStable(e.prefixes, func(i, j int) bool { return len(e.prefixes[i].iri) > len(e.prefixes[j].iri) })
	w.WriteString(">\n")
	return e
}

// qname splits a predicate IRI into an element name and, when no declared prefix covers it, the
// namespace declaration its element carries. The local name is the longest NCName tail.
func (e *rdfxmlEncoder) qname(iri string) (name, decl string, err error) {
	for _, ns := range e.prefixes {
		if local, ok := strings.CutPrefix(iri, ns.iri); ok && local != "" && isNCName(local) {
			return ns.prefix + ":" + local, "", nil
		}
	}
	i := len(iri)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(iri[:i])
		if !isPNChars(r) || r == 0xB7 || (r >= 0x300 && r <= 0x36F) || (r >= 0x203F && r <= 0x2040) {
			if r != '.' {
				break
			}
		}
		i -= size
	}
	// The local name must start with a letter or '_'.
	for i < len(iri) {
		r, size := utf8.DecodeRuneInString(iri[i:])
		if isPNCharsU(r) {
			break
		}
		i += size
	}
	if i >= len(iri) || i == 0 {
		return "", "", fmt.Errorf("rdf: RDF/XML cannot write predicate <%s>: it does not end in an XML name", iri)
	}
	return "ns0:" + iri[i:], ` xmlns:ns0="` + xmlEscape(iri[:i], true) + `"`, nil
}

func (e *rdfxmlEncoder) Encode(ts []Triple) error {
	ts = sortedUnique(ts)
	for i := 0; i < len(ts); {
		s := ts[i].S
		var b strings.Builder
		b.WriteString("  <rdf:Description")
		if s.IsBlank() {
			b.WriteString(` rdf:nodeID="` + xmlNodeID(s.Value) + `"`)
		} else {
			b.WriteString(` rdf:about="` + xmlEscape(s.Value, true) + `"`)
		}
		b.WriteString(">\n")
		for ; i < len(ts) && ts[i].S == s; i++ {
			t := ts[i]
			name, decl, err := e.qname(t.P.Value)
			if err != nil {
				return err
			}
			b.WriteString("    <" + name + decl)
			switch t.O.Kind {
			case KindIRI:
				b.WriteString(` rdf:resource="` + xmlEscape(t.O.Value, true) + `"/>` + "\n")
				continue
			case KindBlank:
				b.WriteString(` rdf:nodeID="` + xmlNodeID(t.O.Value) + `"/>` + "\n")
				continue
			}
			switch {
			case t.O.Lang != "":
				b.WriteString(` xml:lang="` + xmlEscape(t.O.Lang, true) + `"`)
			case t.O.Datatype != "":
				b.WriteString(` rdf:datatype="` + xmlEscape(t.O.Datatype, true) + `"`)
			}
			b.WriteString(">" + xmlEscape(t.O.Value, false) + "</" + name + ">\n")
		}
		b.WriteString("  </rdf:Description>\n")
		if _, err := e.w.WriteString(b.String()); err != nil {
			return err
		}
	}
	return nil
}

func (e *rdfxmlEncoder) Close() error {
	if _, err := e.w.WriteString("</rdf:RDF>\n"); err != nil {
		return err
	}
	return e.w.Flush()
}

// xmlNodeID makes a blank node label an XML NCName (rdf:nodeID): characters outside it as
// _XX hex escapes, prefixed with "b" when it does not start with a letter.
func xmlNodeID(label string) string {
	var b strings.Builder
	b.WriteByte('b')
	for _, r := range label {
		if r < 0x80 && (isASCIILetter(r) || isDigit(r) || r == '-' || r == '.') {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "_%X_", r)
		}
	}
	return b.String()
}

// xmlEscape escapes s for XML text (attr: for a double-quoted attribute too); characters
// XML 1.0 cannot carry become U+FFFD.
func xmlEscape(s string, attr bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"' && attr:
			b.WriteString("&quot;")
		case r == '\r':
			b.WriteString("&#xD;")
		case (r == '\n' || r == '\t') && attr:
			fmt.Fprintf(&b, "&#x%X;", r)
		case r == '\t' || r == '\n' || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || r >= 0x10000:
			if r == utf8.RuneError {
				b.WriteRune(0xFFFD)
				continue
			}
			b.WriteRune(r)
		default:
			b.WriteRune(0xFFFD)
		}
	}
	return b.String()
}

type jsonldEncoder struct {
	w        *bufio.Writer
	prefixes []turtleNamespace // longest namespace first
	first    bool
}

func newJSONLDEncoder(w *bufio.Writer, prefixes map[string]string) *jsonldEncoder {
	e := &jsonldEncoder{w: w, first: true}
	ctx := map[string]string{}
	for p, iri := range prefixes {
		ctx[p] = iri
		e.prefixes = append(e.prefixes, turtleNamespace{prefix: p, iri: iri})
	}
	sort.SliceStable(e.prefixes, func(i, j int) bool {
		if len(e.prefixes[i].iri) != len(e.prefixes[j].iri) {
			return len(e.prefixes[i].iri) > len(e.prefixes[j].iri)
		}
		return e.prefixes[i].prefix < e.prefixes[j].prefix
	})
	b, _ := json.Marshal(ctx) // a map of strings always marshals
	w.WriteString(`{"@context":`)
	w.Write(b)
	w.WriteString(",\n\"@graph\":[")
	return e
}

// property is a predicate's key: a compact IRI when a prefix covers it with a local part that
// cannot be read as an IRI of its own ("//" after the colon would be), else the IRI itself.
func (e *jsonldEncoder) property(iri string) string {
	if iri == RDFType {
		return "@type"
	}
	for _, ns := range e.prefixes {
		if local, ok := strings.CutPrefix(iri, ns.iri); ok && local != "" && !strings.HasPrefix(local, "//") {
			return ns.prefix + ":" + local
		}
	}
	return iri
}

func (e *jsonldEncoder) Encode(ts []Triple) error {
	ts = sortedUnique(ts)
	for i := 0; i < len(ts); {
		s := ts[i].S
		node := map[string]any{}
		if s.IsBlank() {
			node["@id"] = "_:" + s.Value
		} else {
			node["@id"] = s.Value
		}
		for ; i < len(ts) && ts[i].S == s; i++ {
			t := ts[i]
			key := e.property(t.P.Value)
			var v any
			switch {
			case key == "@type" && t.O.IsIRI():
				v = t.O.Value
			case t.O.IsIRI():
				v = map[string]string{"@id": t.O.Value}
			case t.O.IsBlank():
				v = map[string]string{"@id": "_:" + t.O.Value}
			case t.O.Lang != "":
				v = map[string]string{"@value": t.O.Value, "@language": t.O.Lang}
			case t.O.Datatype != "":
				v = map[string]string{"@value": t.O.Value, "@type": t.O.Datatype}
			default:
				v = map[string]string{"@value": t.O.Value}
			}
			if key == "@type" && !t.O.IsIRI() { // a literal or blank class: write it as the IRI it is not
				key = t.P.Value
			}
			list, _ := node[key].([]any)
			node[key] = append(list, v)
		}
		b, err := json.Marshal(node)
		if err != nil {
			return err
		}
		if !e.first {
			e.w.WriteString(",")
		}
		e.first = false
		e.w.WriteString("\n")
		if _, err := e.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func (e *jsonldEncoder) Close() error {
	if _, err := e.w.WriteString("\n]}\n"); err != nil {
		return err
	}
	return e.w.Flush()
}
