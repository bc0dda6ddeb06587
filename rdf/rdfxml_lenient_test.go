package rdf_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// rdfDoc wraps body in rdf:RDF with the rdf: and eg: namespaces, as the W3C tests are.
func rdfDoc(body string) string {
	return `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:eg="http://example.org/"
  xml:base="http://example.org/dir/file">
` + body + "\n</rdf:RDF>"
}

// TestRDFXMLLenientWarnings (item 33): RDF/XML the grammar refuses, modelled on the W3C
// RDF/XML negative syntax tests (rdfms-rdf-names-use/error-*, rdfms-rdf-id/error-*,
// rdf-containers-syntax-vs-schema/error-*, rdfms-syntax-incomplete), is read leniently: it
// parses, and each problem is a Warning with its position.
func TestRDFXMLLenientWarnings(t *testing.T) {
	for name, c := range map[string]struct{ body, want string }{
		"rdf:RDF as node":       {`<rdf:RDF/>`, "[line: 4, col: 1] rdf:RDF used as a node element"},
		"rdf:ID as node":        {`<rdf:ID/>`, "rdf:ID used as a node element"},
		"rdf:about as node":     {`<rdf:about/>`, "rdf:about used as a node element"},
		"rdf:li as node":        {`<rdf:li/>`, "rdf:li used as a node element"},
		"rdf:parseType as node": {`<rdf:parseType/>`, "rdf:parseType used as a node element"},
		"rdf:resource as prop":  {`<rdf:Description><rdf:resource/></rdf:Description>`, "rdf:resource used as a property element"},
		"rdf:Description as prop": {`<rdf:Description><rdf:Description/></rdf:Description>`,
			"rdf:Description used as a property element"},
		"rdf:RDF as prop":        {`<rdf:Description><rdf:RDF/></rdf:Description>`, "rdf:RDF used as a property element"},
		"rdf:li as attribute":    {`<rdf:Description rdf:li="1"/>`, "rdf:li used as a property attribute"},
		"bad rdf:ID":             {`<rdf:Description rdf:ID="333-555-666"/>`, `rdf:ID "333-555-666" is not an XML NCName`},
		"rdf:ID with colon":      {`<rdf:Description rdf:ID="a:b"/>`, `rdf:ID "a:b" is not an XML NCName`},
		"bad rdf:ID on property": {`<rdf:Description><eg:p rdf:ID="_:xx">v</eg:p></rdf:Description>`, `rdf:ID "_:xx" is not`},
		"bad rdf:nodeID":         {`<rdf:Description rdf:nodeID="333-555-666"/>`, `rdf:nodeID "333-555-666" is not an XML NCName`},
		"repeated rdf:ID": {`<rdf:Description rdf:ID="foo"/>` + "\n" + `<rdf:Description rdf:ID="foo"/>`,
			`[line: 5, col: 1] rdf:ID "foo" is given twice`},
	} {
		t.Run(name, func(t *testing.T) {
			var warns []string
			err := rdf.ParseWith(strings.NewReader(rdfDoc(c.body)), rdf.RDFXML, "", rdf.Options{
				Warn: func(w rdf.Warning) { warns = append(warns, w.String()) }}, func(rdf.Triple) error { return nil })
			require.NoError(t, err, "read leniently")
			require.Len(t, warns, 1)
			require.Contains(t, warns[0], c.want)
		})
	}

	// Good RDF/XML warns of nothing; the same rdf:ID under two bases is two IRIs.
	var warns []rdf.Warning
	good := rdfDoc(`<rdf:Description rdf:ID="a1" eg:p="x"><rdf:li>one</rdf:li><eg:q rdf:ID="s_1">v</eg:q></rdf:Description>
<rdf:Description xml:base="http://example.org/other" rdf:ID="a1"/>
<eg:Thing rdf:nodeID="n-1.x"><rdf:type rdf:resource="http://example.org/T"/></eg:Thing>`)
	lines := 0
	require.NoError(t, rdf.ParseWith(strings.NewReader(good), rdf.RDFXML, "", rdf.Options{
		Warn: func(w rdf.Warning) { warns = append(warns, w) }}, func(rdf.Triple) error { lines++; return nil }))
	require.Empty(t, warns)
	require.Equal(t, 9, lines)
}
