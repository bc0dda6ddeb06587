package rdf_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/rdf"
)

func TestRDFXMLSyntax(t *testing.T) {
	doc := `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dct="http://purl.org/dc/terms/"
  xmlns:dcat="http://www.w3.org/ns/dcat#" xmlns:ex="http://example.org/ns/" xml:base="http://example.org/dir/">
  <dcat:Catalog rdf:about="cat" xml:lang="en" dct:title="Attr title">
    <dct:title xml:lang="DE">Katalog</dct:title>
    <dct:description>english</dct:description>
    <dct:issued rdf:datatype="http://www.w3.org/2001/XMLSchema#date">2024-01-01</dct:issued>
    <dcat:dataset>
      <dcat:Dataset rdf:about="#ds1" xml:base="http://other.org/x/">
        <dcat:distribution rdf:parseType="Resource">
          <dcat:accessURL rdf:resource="file.csv"/>
          <ex:nested><ex:Thing rdf:nodeID="n1"/></ex:nested>
        </dcat:distribution>
        <ex:list rdf:parseType="Collection">
          <rdf:Description rdf:about="a"/><rdf:Description rdf:about="b"/>
        </ex:list>
        <ex:xml rdf:parseType="Literal"><b>bold</b> text</ex:xml>
        <ex:empty/>
        <ex:blank ex:p="v"/>
        <rdf:li rdf:resource="one"/><rdf:li rdf:resource="two"/>
      </dcat:Dataset>
    </dcat:dataset>
    <ex:ref rdf:nodeID="n1"/>
  </dcat:Catalog>
  <rdf:Description rdf:ID="frag" rdf:type="http://example.org/ns/T"/>
</rdf:RDF>`
	got := strings.Join(parseLines(t, rdf.RDFXML, "http://ignored.example/doc", doc), "\n")
	for _, want := range []string{
		`<http://example.org/dir/cat> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/dcat#Catalog> .`,
		`<http://example.org/dir/cat> <http://purl.org/dc/terms/title> "Attr title"@en .`,
		`<http://example.org/dir/cat> <http://purl.org/dc/terms/title> "Katalog"@de .`,
		`<http://example.org/dir/cat> <http://purl.org/dc/terms/description> "english"@en .`,
		`<http://example.org/dir/cat> <http://purl.org/dc/terms/issued> "2024-01-01"^^<http://www.w3.org/2001/XMLSchema#date> .`,
		`<http://example.org/dir/cat> <http://www.w3.org/ns/dcat#dataset> <http://other.org/x/#ds1> .`,
		`<http://other.org/x/file.csv>`,
		`<http://other.org/x/#ds1> <http://example.org/ns/list> _:`,
		`<http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://other.org/x/a> .`,
		`<http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .`,
		`<http://other.org/x/#ds1> <http://example.org/ns/xml> "<b>bold</b> text"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> .`,
		`<http://other.org/x/#ds1> <http://example.org/ns/empty> ""@en .`,
		`<http://example.org/ns/p> "v"@en .`,
		`<http://other.org/x/#ds1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#_2> <http://other.org/x/two> .`,
		`<http://example.org/dir/#frag> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/ns/T> .`,
	} {
		require.Contains(t, got, want)
	}
	require.NotContains(t, got, "Description")
	// rdf:nodeID="n1" is one node in both places.
	n := 0
	rdf.Parse(strings.NewReader(doc), rdf.RDFXML, "", func(tr rdf.Triple) error {
		if tr.P.Value == "http://example.org/ns/ref" || tr.P.Value == "http://example.org/ns/nested" {
			require.True(t, tr.O.IsBlank())
			if n == 0 {
				n = len(tr.O.Value)
			}
		}
		return nil
	})
}

func TestRDFXMLErrors(t *testing.T) {
	f, err := os.Open(corpustest.Path(t, "dcatap/INVALID-opendata-swiss-import-multiple-node-elements.rdf"))
	require.NoError(t, err)
	defer f.Close()
	err = rdf.Parse(f, rdf.RDFXML, "", func(rdf.Triple) error { return nil })
	// <dcat:distribution> holds <dct:identifier>…</dct:identifier> and more: node elements
	// (rdflib: "Repeat node-elements inside property elements" at 85:70; the first wrong
	// thing is the text inside the first of them).
	require.EqualError(t, err, `[line: 84, col: 27] text "ch.bafu.laerm-bahnlaerm_nacht" in a node element (expected property elements)`)

	for doc, want := range map[string]string{
		`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description><p>x</p></rdf:Description></rdf:RDF>`:            "[line: 1, col: 83] element <p> has no namespace",
		"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n<rdf:Description>\n</rdf:RDF>":                                "[line: 3",
		`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/"><e:A><e:p><e:B/><e:C/></e:p></e:A></rdf:RDF>`: "Repeat node-elements inside property elements: http://e/p",
		`<rdf:RDF`: "[line: 1",
	} {
		err := rdf.Parse(strings.NewReader(doc), rdf.RDFXML, "", func(rdf.Triple) error { return nil })
		require.ErrorContains(t, err, want, doc)
		var se *rdf.SyntaxError
		require.ErrorAs(t, err, &se)
	}
}

func TestJSONLD(t *testing.T) {
	got := parseLines(t, rdf.JSONLD, "http://example.org/", `{"@context": {"dct": "http://purl.org/dc/terms/", "title": {"@id": "dct:title", "@language": "en"}},
	  "@graph": [{"@id": "ds/1", "title": "A \"quoted\"\ntitle", "dct:issued": {"@value": "2024", "@type": "http://www.w3.org/2001/XMLSchema#gYear"}, "dct:x": {"dct:y": 1}}]}`)
	require.Equal(t, normBlanks([]string{
		`<http://example.org/ds/1> <http://purl.org/dc/terms/title> "A \"quoted\"\ntitle"@en .`,
		`<http://example.org/ds/1> <http://purl.org/dc/terms/issued> "2024"^^<http://www.w3.org/2001/XMLSchema#gYear> .`,
		`<http://example.org/ds/1> <http://purl.org/dc/terms/x> _:b0 .`,
		`_:b0 <http://purl.org/dc/terms/y> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
	}), got)

	for doc, want := range map[string]string{
		`{"@context": "https://schema.org/", "name": "x"}`: "remote @context not fetched",
		"{\n  \"a\": 1,\n  \"b\" 2\n}":                     "[line: 3, col: 7] JSON: expected colon after object key",
		"{\"a\": ":                                         "[line: 1, col: 7] JSON: unexpected end of JSON input",
		`{} {}`:                                            "data after the JSON document",
	} {
		err := rdf.Parse(strings.NewReader(doc), rdf.JSONLD, "", func(rdf.Triple) error { return nil })
		require.ErrorContains(t, err, want, doc)
		var se *rdf.SyntaxError
		require.ErrorAs(t, err, &se)
	}
}
