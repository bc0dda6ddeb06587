package rdf

import (
	"strings"
)

// Well-known IRIs.
const (
	RDFType       = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
	RDFLangString = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
	XSDString     = "http://www.w3.org/2001/XMLSchema#string"
)

// TermKind says what a Term is.
type TermKind uint8

// Term kinds. The zero kind is no term: a wildcard in Graph.Match.
const (
	KindIRI TermKind = iota + 1
	KindBlank
	KindLiteral
)

// Term is one RDF 1.1 term. Terms are comparable and usable as map keys; two terms are the same
// term exactly when they are ==, so constructors normalise: a literal's datatype xsd:string is
// stored as "" (RDF 1.1 simple literals are xsd:string), a language-tagged literal has Datatype
// "" and its tag lower-cased (tags are case-insensitive, BCP 47).
type Term struct {
	Kind TermKind
	// Value is the IRI, the blank node's label (without "_:"), or the literal's lexical form.
	Value string
	// Datatype is a literal's datatype IRI; "" for xsd:string and language-tagged literals.
	Datatype string
	// Lang is a language-tagged literal's tag, lower-cased; "" otherwise.
	Lang string
}

// IRI returns the IRI term iri (taken as it is: resolving and checking are the parser's job).
func IRI(iri string) Term { return Term{Kind: KindIRI, Value: iri} }

// Blank returns the blank node labelled label (without "_:").
func Blank(label string) Term { return Term{Kind: KindBlank, Value: label} }

// Literal returns the literal with lexical form value, datatype IRI datatype and language tag
// lang: lang wins over datatype (rdf:langString is implied), and xsd:string is the same as no
// datatype.
func Literal(value, datatype, lang string) Term {
	if lang != "" {
		return Term{Kind: KindLiteral, Value: value, Lang: strings.ToLower(lang)}
	}
	if datatype == XSDString || datatype == RDFLangString {
		datatype = ""
	}
	return Term{Kind: KindLiteral, Value: value, Datatype: datatype}
}

// IsZero reports whether t is no term (a wildcard).
func (t Term) IsZero() bool { return t.Kind == 0 }

// IsIRI, IsBlank and IsLiteral report t's kind.
func (t Term) IsIRI() bool     { return t.Kind == KindIRI }
func (t Term) IsBlank() bool   { return t.Kind == KindBlank }
func (t Term) IsLiteral() bool { return t.Kind == KindLiteral }

// String returns t in N-Triples syntax (NTriples).
func (t Term) String() string { return t.NTriples() }

// NTriples returns t in N-Triples syntax (RDF 1.1 N-Triples §2.3), in the escaping
// json-gold's canonical N-Quads uses: IRIs in <> (characters N-Triples forbids in an IRI,
// such as the space some RDF/XML files carry, as \u00XX), blank nodes as _:label, literals
// quoted with \" \\ \n \r \t escaped (other control characters as \u00XX), then @lang or
// ^^<datatype> (none for xsd:string). ParseRecord reads it back to the same term (Parse
// refuses the escapes in an IRI, as the grammar does).
func (t Term) NTriples() string {
	var b strings.Builder
	b.Grow(len(t.Value) + len(t.Datatype) + len(t.Lang) + 8)
	t.writeNTriples(&b)
	return b.String()
}

const hexDigits = "0123456789ABCDEF"

func writeUchar(b *strings.Builder, c byte) {
	b.WriteString(`\u00`)
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&15])
}

// iriEscaped marks the bytes writeIRI writes as \u00XX; quoteEscaped those writeQuoted escapes.
var iriEscaped, quoteEscaped = func() (iri, quote [256]bool) {
	for c := range 256 {
		iri[c] = c <= 0x20 || c == '<' || c == '>' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' || c == '`' || c == '\\'
		quote[c] = c < 0x20 || c == 0x7f || c == '"' || c == '\\'
	}
	return iri, quote
}()

func writeIRI(b *strings.Builder, iri string) {
	b.WriteByte('<')
	from := 0 // iri[from:i] needs no escape
	for i := 0; i < len(iri); i++ {
		if c := iri[i]; iriEscaped[c] {
			b.WriteString(iri[from:i])
			writeUchar(b, c)
			from = i + 1
		}
	}
	b.WriteString(iri[from:])
	b.WriteByte('>')
}

func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	from := 0 // s[from:i] needs no escape
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !quoteEscaped[c] {
			continue
		}
		b.WriteString(s[from:i])
		from = i + 1
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			writeUchar(b, c)
		}
	}
	b.WriteString(s[from:])
	b.WriteByte('"')
}

// appendIRI, appendQuoted and appendUchar are writeIRI, writeQuoted and writeUchar appending to
// a byte slice (AppendNTriples).
func appendUchar(b []byte, c byte) []byte {
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
}

func appendIRI(b []byte, iri string) []byte {
	b = append(b, '<')
	from := 0
	for i := 0; i < len(iri); i++ {
		if c := iri[i]; iriEscaped[c] {
			b = appendUchar(append(b, iri[from:i]...), c)
			from = i + 1
		}
	}
	return append(append(b, iri[from:]...), '>')
}

func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	from := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !quoteEscaped[c] {
			continue
		}
		b = append(b, s[from:i]...)
		from = i + 1
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = appendUchar(b, c)
		}
	}
	return append(append(b, s[from:]...), '"')
}

// AppendNTriples appends t in N-Triples syntax, as NTriples writes it, to b.
func (t Term) AppendNTriples(b []byte) []byte {
	switch t.Kind {
	case KindIRI:
		b = appendIRI(b, t.Value)
	case KindBlank:
		b = append(append(b, "_:"...), t.Value...)
	case KindLiteral:
		b = appendQuoted(b, t.Value)
		switch {
		case t.Lang != "":
			b = append(append(b, '@'), t.Lang...)
		case t.Datatype != "":
			b = appendIRI(append(b, "^^"...), t.Datatype)
		}
	}
	return b
}

func (t Term) writeNTriples(b *strings.Builder) {
	switch t.Kind {
	case KindIRI:
		writeIRI(b, t.Value)
	case KindBlank:
		b.WriteString("_:")
		b.WriteString(t.Value)
	case KindLiteral:
		writeQuoted(b, t.Value)
		switch {
		case t.Lang != "":
			b.WriteByte('@')
			b.WriteString(t.Lang)
		case t.Datatype != "":
			b.WriteString("^^")
			writeIRI(b, t.Datatype)
		}
	}
}

// Triple is one RDF triple: S is an IRI or blank node, P an IRI, O any term.
type Triple struct {
	S, P, O Term
}

// NTriples returns the triple as one N-Triples line, without the newline.
func (t Triple) NTriples() string {
	var b strings.Builder
	b.Grow(len(t.S.Value) + len(t.P.Value) + len(t.O.Value) + len(t.O.Datatype) + len(t.O.Lang) + 16)
	t.S.writeNTriples(&b)
	b.WriteByte(' ')
	t.P.writeNTriples(&b)
	b.WriteByte(' ')
	t.O.writeNTriples(&b)
	b.WriteString(" .")
	return b.String()
}

// AppendNTriples appends the triple as NTriples writes it (one N-Triples line without the
// newline) to b.
func (t Triple) AppendNTriples(b []byte) []byte {
	b = append(t.S.AppendNTriples(b), ' ')
	b = append(t.P.AppendNTriples(b), ' ')
	return append(t.O.AppendNTriples(b), " ."...)
}
