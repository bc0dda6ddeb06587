package rdf_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// The cases below are written from the RDF 1.1 grammars after W3C syntax tests of
// w3c/rdf-tests (named in each case); the suites themselves are not part of this repository.

// TestW3CCommentAfterPrefixedName (issue 34 item 11): comment_following_localName and
// comment_following_PNAME_NS are positive tests: "p:o#comment" is the name p:o and a comment
// (PN_LOCAL has no '#'). The triple is read, with a Warning, since a publisher writing it
// more likely meant the '#' in the IRI.
func TestW3CCommentAfterPrefixedName(t *testing.T) {
	for _, f := range []rdf.Format{rdf.Turtle, rdf.TriG} {
		for name, c := range map[string]struct{ doc, object string }{
			"comment_following_localName": {"@prefix p: <http://a.example/> .\n<http://a.example/s> <http://a.example/p> p:o#comment\n.",
				"http://a.example/o"},
			"comment_following_PNAME_NS": {"@prefix p: <http://a.example/> .\n<http://a.example/s> <http://a.example/p> p:#comment\n.",
				"http://a.example/"},
		} {
			t.Run(string(f)+"/"+name, func(t *testing.T) {
				var warns []string
				var got []rdf.Triple
				require.NoError(t, rdf.ParseWith(strings.NewReader(c.doc), f, "", rdf.Options{
					Warn: func(w rdf.Warning) { warns = append(warns, w.String()) }},
					func(tr rdf.Triple) error { got = append(got, tr); return nil }))
				require.Equal(t, []rdf.Triple{{S: rdf.IRI("http://a.example/s"), P: rdf.IRI("http://a.example/p"), O: rdf.IRI(c.object)}}, got)
				require.Len(t, warns, 1)
				require.Contains(t, warns[0], "[line: 2, col: ")
				require.Contains(t, warns[0], "starts a comment")
			})
		}
	}
	// An escaped '#' is part of the name (number_sign_following_localName) and warns of nothing.
	var warns []rdf.Warning
	var got []rdf.Triple
	require.NoError(t, rdf.ParseWith(strings.NewReader("@prefix p: <http://a.example/> .\n<http://a.example/s> <http://a.example/p> p:o\\#x ."),
		rdf.Turtle, "", rdf.Options{Warn: func(w rdf.Warning) { warns = append(warns, w) }},
		func(tr rdf.Triple) error { got = append(got, tr); return nil }))
	require.Empty(t, warns)
	require.Equal(t, "http://a.example/o#x", got[0].O.Value)
}

// TestW3CNegativeSyntax (issue 34 item 11): documents of W3C negative syntax tests are refused
// with a *SyntaxError.
func TestW3CNegativeSyntax(t *testing.T) {
	const ex = "@prefix : <http://www.example.org/> .\n"
	type c struct {
		f        rdf.Format
		doc      string
		wantText string
	}
	cases := map[string]c{}
	for _, f := range []rdf.Format{rdf.Turtle, rdf.TriG} {
		pre := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(string(f), "text/"), "application/"))
		// *-syntax-bad-uri-escape-01..03: a \u escape spelling a space, '<' or '>' in an IRI.
		cases[pre+"-syntax-bad-uri-escape-01"] = c{f, `<http://example.org/a\u0020b> <http://example.org/p> <http://example.org/o> .`, "Bad character in IRI (space, written as an escape"}
		cases[pre+"-syntax-bad-uri-escape-02"] = c{f, `<http://example.org/s> <http://example.org/p> <http://example.org/\u003C> .`, "Bad character in IRI ('<'"}
		cases[pre+"-syntax-bad-uri-escape-03"] = c{f, `<http://example.org/s> <http://example.org/\U0000003E> <http://example.org/o> .`, "Bad character in IRI ('>'"}
		// *-syntax-bad-string-06/07: four closing quotes are the closing three and a stray quote.
		cases[pre+"-syntax-bad-string-06"] = c{f, ex + `:s :p """abc"""" .`, "expected '.' at the end of the triples, found '\"'"}
		cases[pre+"-syntax-bad-string-07"] = c{f, ex + `:s :p '''abc'''' .`, "expected '.' at the end of the triples, found '\\''"}
	}
	// trig-collection-graph-01: a collection is no graph name, the empty one neither.
	cases["trig-collection-graph-01"] = c{rdf.TriG, ex + `() {:s :p :o}`, "a graph name must be an IRI or a blank node label"}
	cases["trig-collection-graph (non-empty)"] = c{rdf.TriG, ex + `(:a) {:s :p :o}`, "a graph name must be"}
	// nt-syntax-bad-uri-06..09, nq-syntax-bad-uri-01: relative IRIs in N-Triples and N-Quads,
	// refused even with a base to resolve them against.
	cases["nt-syntax-bad-uri-06"] = c{rdf.NTriples, `<s> <http://example.org/p> <http://example.org/o> .`, "[line: 1, col: 1] relative IRI <s>"}
	cases["nt-syntax-bad-uri-07"] = c{rdf.NTriples, `<http://example.org/s> <p> <http://example.org/o> .`, "[line: 1, col: 24] relative IRI <p>"}
	cases["nt-syntax-bad-uri-08"] = c{rdf.NTriples, `<http://example.org/s> <http://example.org/p> <o> .`, "relative IRI <o>"}
	cases["nt-syntax-bad-uri-09"] = c{rdf.NTriples, `<http://example.org/s> <http://example.org/p> "foo"^^<dt> .`, "relative IRI <dt>"}
	cases["nq-syntax-bad-uri-01"] = c{rdf.NQuads, `<http://example.org/s> <http://example.org/p> <http://example.org/o> <g> .`, "relative IRI <g>"}
	cases["nq-syntax-bad-uri-escape"] = c{rdf.NQuads, `<http://example.org/a\u0020b> <http://example.org/p> <http://example.org/o> .`, "Bad character in IRI (space"}
	// rdfms-empty-property-elements-error001/002: rdf:parseType="Literal" with rdf:resource,
	// as an empty element and with an end tag; the same with the other parse types.
	cases["rdfms-empty-property-elements-error001"] = c{rdf.RDFXML, rdfDoc(`<rdf:Description rdf:about="http://example.org/bar">
  <eg:someProperty rdf:parseType="Literal" rdf:resource="http://example.org/foo" />
</rdf:Description>`), `rdf:parseType="Literal" and rdf:resource on one property element`}
	cases["rdfms-empty-property-elements-error002"] = c{rdf.RDFXML, rdfDoc(`<rdf:Description rdf:about="http://example.org/bar">
  <eg:someProperty rdf:parseType="Literal" rdf:resource="http://example.org/foo"></eg:someProperty>
</rdf:Description>`), `rdf:parseType="Literal" and rdf:resource`}
	cases["parseType Resource with rdf:nodeID"] = c{rdf.RDFXML, rdfDoc(`<rdf:Description><eg:p rdf:parseType="Resource" rdf:nodeID="n"/></rdf:Description>`),
		`rdf:parseType="Resource" and rdf:nodeID`}
	cases["parseType Literal with rdf:datatype"] = c{rdf.RDFXML, rdfDoc(`<rdf:Description><eg:p rdf:parseType="Literal" rdf:datatype="http://example.org/T">x</eg:p></rdf:Description>`),
		`rdf:parseType="Literal" and rdf:datatype`}
	cases["parseType Collection with a property attribute"] = c{rdf.RDFXML, rdfDoc(`<rdf:Description><eg:p rdf:parseType="Collection" eg:q="v"/></rdf:Description>`),
		`the property attribute http://example.org/q`}
	// rdfms-rdf-id-error007: rdf:bagID on a property element (error006 has it on a node element).
	cases["rdfms-rdf-id-error007"] = c{rdf.RDFXML, rdfDoc(`<rdf:Description><eg:prop rdf:bagID="q:name" /></rdf:Description>`), "rdf:bagID was removed from RDF"}
	cases["rdfms-rdf-id-error006"] = c{rdf.RDFXML, rdfDoc(`<rdf:Description rdf:bagID='333-555-666' />`), "rdf:bagID was removed from RDF"}

	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := rdf.Parse(strings.NewReader(c.doc), c.f, "http://example.org/base/doc", func(rdf.Triple) error { return nil })
			var se *rdf.SyntaxError
			require.ErrorAs(t, err, &se, c.doc)
			require.Contains(t, err.Error(), c.wantText)
		})
	}
}

// TestW3CPositiveNeighbours: what the negative cases above must not catch still parses: an
// escape of an IRI character, two quotes inside a long string, the empty long
// string, "[]" as a TriG graph name, rdf:ID with rdf:parseType.
func TestW3CPositiveNeighbours(t *testing.T) {
	for name, c := range map[string]struct {
		f    rdf.Format
		doc  string
		want string
	}{
		"IRI_with_four_digit_numeric_escape": {rdf.NTriples, `<http://a.example/s> <http://a.example/p> <http://a.example/\u006F> .`, "http://a.example/o"},
		"LITERAL_LONG2_with_2_dquotes":       {rdf.Turtle, `<http://a.example/s> <http://a.example/p> """x""y""" .`, `x""y`},
		"empty long string":                  {rdf.Turtle, `<http://a.example/s> <http://a.example/p> """""" .`, ""},
		"anonymous graph name":               {rdf.TriG, `[] { <http://a.example/s> <http://a.example/p> "v" }`, "v"},
		"parseType with rdf:ID": {rdf.RDFXML, rdfDoc(`<rdf:Description rdf:about="http://a.example/s"><eg:p rdf:ID="r1" rdf:parseType="Literal">v</eg:p></rdf:Description>`),
			"v"},
	} {
		t.Run(name, func(t *testing.T) {
			var objs []string
			err := rdf.Parse(strings.NewReader(c.doc), c.f, "", func(tr rdf.Triple) error {
				objs = append(objs, tr.O.Value)
				return nil
			})
			require.NoError(t, err, c.doc)
			require.Contains(t, objs, c.want)
		})
	}
}

// TestParseRecord: a record body as Term.NTriples writes it (an IRI holding a space, from
// RDF/XML, as \u0020; a relative IRI) is read back by ParseRecord, which Parse refuses.
func TestParseRecord(t *testing.T) {
	ts := []rdf.Triple{
		{S: rdf.IRI("http://example.org/s"), P: rdf.IRI("http://example.org/p"), O: rdf.IRI(" https://example.org/a b")},
		{S: rdf.IRI("http://example.org/s"), P: rdf.IRI("http://example.org/p"), O: rdf.IRI("relative/x")},
	}
	var body strings.Builder
	require.NoError(t, rdf.WriteNTriples(&body, ts))
	var back []rdf.Triple
	require.NoError(t, rdf.ParseRecord(strings.NewReader(body.String()), func(tr rdf.Triple) error { back = append(back, tr); return nil }))
	require.Equal(t, ts, back)
	require.Error(t, rdf.Parse(strings.NewReader(body.String()), rdf.NQuads, "", func(rdf.Triple) error { return nil }))
}
