package shacl_test

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/shacl"
)

const prefixes = `@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
`

func graph(t *testing.T, turtle string) *rdf.MemGraph {
	t.Helper()
	g := rdf.NewMemGraph()
	require.NoError(t, rdf.ParseGraph(strings.NewReader(prefixes+turtle), rdf.Turtle, "http://example.org/", g))
	return g
}

func compile(t *testing.T, turtle string) *shacl.Shapes {
	t.Helper()
	s, err := shacl.Compile(graph(t, turtle))
	require.NoError(t, err)
	return s
}

// results renders a report as "focus path constraint severity" lines, sorted.
func results(r *shacl.Report) []string {
	var out []string
	for _, x := range r.Results {
		out = append(out, strings.Join([]string{x.Focus.NTriples(), x.Path, x.Constraint, x.Severity.String()}, " "))
	}
	sort.Strings(out)
	return out
}

const ex = "http://example.org/"

func TestConstraints(t *testing.T) {
	shapes := compile(t, `
ex:DatasetShape a sh:NodeShape ; sh:targetClass ex:Dataset ;
  sh:property [ sh:path ex:title ; sh:minCount 1 ; sh:maxCount 1 ; sh:nodeKind sh:Literal ] ;
  sh:property [ sh:path ex:publisher ; sh:class ex:Agent ; sh:severity sh:Warning ; sh:message "publisher is an Agent"@en, "utgiver"@nb ] ;
  sh:property [ sh:path ex:issued ; sh:or ( [ sh:datatype xsd:date ] [ sh:datatype xsd:dateTime ] ) ; sh:severity sh:Info ] ;
  sh:property [ sh:path ex:distribution ; sh:node ex:DistShape ] ;
  sh:property [ sh:path ex:theme ; sh:qualifiedValueShape [ sh:pattern "^http://eurovoc" ] ; sh:qualifiedMinCount 1 ] ;
  sh:property [ sh:path ex:status ; sh:hasValue ex:Final ] .
ex:DistShape sh:property [ sh:path ex:accessURL ; sh:minCount 1 ; sh:nodeKind sh:IRI ] .
ex:Agent2 sh:targetObjectsOf ex:creator ; sh:and ( [ sh:class ex:Agent ] [ sh:nodeKind sh:IRI ] ) .
ex:Node sh:targetNode ex:n1 ; sh:property [ sh:path ex:p ; sh:datatype xsd:decimal ] .
ex:Subj sh:targetSubjectsOf ex:subj ; sh:property [ sh:path ex:q ; sh:minCount 1 ] .
`)
	data := graph(t, `
ex:SubDataset rdfs:subClassOf ex:Dataset .
ex:SubAgent rdfs:subClassOf ex:Agent .
ex:ok a ex:SubDataset ; ex:title "T" ; ex:publisher ex:pub ; ex:issued "2020-01-01"^^xsd:date ;
  ex:distribution [ ex:accessURL <http://x> ] ; ex:theme <http://eurovoc.europa.eu/1>, ex:other ; ex:status ex:Final .
ex:pub a ex:SubAgent .
ex:bad a ex:Dataset ; ex:title "A", "B" ; ex:publisher ex:nobody ; ex:issued "2020-01-01" , "2020-13-01"^^xsd:date ;
  ex:distribution [ ex:accessURL "not an IRI" ] , ex:dist2 ; ex:theme ex:other ; ex:status ex:Draft ;
  ex:creator ex:pub, _:anon, "lit" .
_:anon a ex:Agent .
ex:n1 ex:p "1.5"^^xsd:decimal, "1e5"^^xsd:decimal, "1.5" .
ex:s1 ex:subj ex:x .
`)
	r := shapes.Validate(data)
	require.False(t, r.Conforms)
	require.Equal(t, []string{
		`"lit"  sh:and sh:Violation`,
		`<http://example.org/bad> http://example.org/distribution sh:node sh:Violation`,
		`<http://example.org/bad> http://example.org/distribution sh:node sh:Violation`,
		`<http://example.org/bad> http://example.org/issued sh:or sh:Info`,
		`<http://example.org/bad> http://example.org/issued sh:or sh:Info`,
		`<http://example.org/bad> http://example.org/publisher sh:class sh:Warning`,
		`<http://example.org/bad> http://example.org/status sh:hasValue sh:Violation`,
		`<http://example.org/bad> http://example.org/theme sh:qualifiedValueShape sh:Violation`,
		`<http://example.org/bad> http://example.org/title sh:maxCount sh:Violation`,
		`<http://example.org/n1> http://example.org/p sh:datatype sh:Violation`,
		`<http://example.org/n1> http://example.org/p sh:datatype sh:Violation`,
		`<http://example.org/s1> http://example.org/q sh:minCount sh:Violation`,
		`_:` + blankOf(t, r) + `  sh:and sh:Violation`,
	}, results(r))
	for _, x := range r.Results {
		if x.Constraint == "sh:class" {
			require.Equal(t, "publisher is an Agent", x.Message, "English sh:message preferred")
			require.Equal(t, rdf.IRI(ex+"nobody"), x.Value)
		}
	}
}

func blankOf(t *testing.T, r *shacl.Report) string {
	for _, x := range r.Results {
		if x.Focus.IsBlank() {
			return x.Focus.Value
		}
	}
	t.Fatal("no blank focus node")
	return ""
}

func TestConformsAndDeactivated(t *testing.T) {
	shapes := compile(t, `
ex:S sh:targetClass ex:C ; sh:property [ sh:path ex:p ; sh:minCount 1 ] .
ex:Off sh:targetClass ex:C ; sh:deactivated true ; sh:property [ sh:path ex:q ; sh:minCount 1 ] .
`)
	r := shapes.Validate(graph(t, `ex:a a ex:C ; ex:p 1 .`))
	require.True(t, r.Conforms)
	require.Empty(t, r.Results)
	r = shapes.Validate(graph(t, `ex:a a ex:C .`))
	require.False(t, r.Conforms)
	require.Equal(t, []string{"<http://example.org/a> http://example.org/p sh:minCount sh:Violation"}, results(r))
}

func TestRecursiveShapesTerminate(t *testing.T) {
	shapes := compile(t, `
ex:Person sh:targetClass ex:Person ; sh:property [ sh:path ex:knows ; sh:node ex:Person ] ;
  sh:property [ sh:path ex:name ; sh:minCount 1 ] .
`)
	r := shapes.Validate(graph(t, `ex:a a ex:Person ; ex:name "a" ; ex:knows ex:b . ex:b ex:knows ex:a ; ex:name "b" . ex:c a ex:Person ; ex:knows ex:c .`))
	// ex:c has no name, so it does not conform to ex:Person, so its ex:knows value (itself) fails
	// sh:node; a and b know each other and conform.
	require.Equal(t, []string{"<http://example.org/c> http://example.org/knows sh:node sh:Violation",
		"<http://example.org/c> http://example.org/name sh:minCount sh:Violation"}, results(r))
}

func TestCompileRejectsUnsupported(t *testing.T) {
	for name, shape := range map[string]string{
		"sh:in":          `ex:S sh:targetNode ex:a ; sh:in ( ex:a ) .`,
		"sh:not":         `ex:S sh:targetNode ex:a ; sh:not [ sh:class ex:C ] .`,
		"sh:xone":        `ex:S sh:targetNode ex:a ; sh:xone ( [ sh:class ex:C ] ) .`,
		"inverse path":   `ex:S sh:targetNode ex:a ; sh:property [ sh:path [ sh:inversePath ex:p ] ; sh:minCount 1 ] .`,
		"sequence path":  `ex:S sh:targetNode ex:a ; sh:property [ sh:path ( ex:p ex:q ) ; sh:minCount 1 ] .`,
		"closed true":    `ex:S sh:targetNode ex:a ; sh:closed true .`,
		"flags":          `ex:S sh:targetNode ex:a ; sh:pattern "x" ; sh:flags "i" .`,
		"minLength":      `ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:minLength 1 ] .`,
		"languageIn":     `ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:languageIn ( "en" ) ] .`,
		"uniqueLang":     `ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:uniqueLang true ] .`,
		"lessThan":       `ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:lessThan ex:q ] .`,
		"minInclusive":   `ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:minInclusive 1 ] .`,
		"sparql":         `ex:S sh:targetNode ex:a ; sh:sparql [ sh:select "SELECT $this WHERE {}" ] .`,
		"implicit class": `ex:S a sh:NodeShape, rdfs:Class ; sh:property [ sh:path ex:p ; sh:minCount 1 ] .`,
		"severity":       `ex:S sh:targetNode ex:a ; sh:severity ex:Fatal ; sh:class ex:C .`,
		"nested in or":   `ex:S sh:targetNode ex:a ; sh:or ( [ sh:in ( ex:a ) ] ) .`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := shacl.Compile(graph(t, shape))
			require.Error(t, err)
			require.True(t, errors.Is(err, shacl.ErrUnsupported), "%v", err)
		})
	}
}

func TestCompileRejectsMalformed(t *testing.T) {
	for name, shape := range map[string]string{
		"count not integer": `ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:minCount "x" ] .`,
		"negative count":    `ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:maxCount -1 ] .`,
		"bad pattern":       `ex:S sh:targetNode ex:a ; sh:pattern "(" .`,
		"or not a list":     `ex:S sh:targetNode ex:a ; sh:or ex:notAList .`,
		"bad node kind":     `ex:S sh:targetNode ex:a ; sh:nodeKind ex:Thing .`,
		"minCount on node":  `ex:S sh:targetNode ex:a ; sh:minCount 1 .`,
		"two paths":         `ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p, ex:q ; sh:minCount 1 ] .`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := shacl.Compile(graph(t, shape))
			require.Error(t, err)
			require.False(t, errors.Is(err, shacl.ErrUnsupported), "%v", err)
		})
	}
}

func TestCompileIgnoresNonSHACLTerms(t *testing.T) {
	s := compile(t, `ex:S sh:targetClass ex:C ; sh:targetSubjectOf ex:p ; sh:property [ sh:path ex:p ; sh:MinCount 1 ] .`)
	require.Equal(t, []string{shacl.NS + "MinCount", shacl.NS + "targetSubjectOf"}, s.Ignored())
	require.True(t, s.Validate(graph(t, `ex:a a ex:C .`)).Conforms)
}

func TestDatatypeLexicalSpace(t *testing.T) {
	shapes := compile(t, `ex:S sh:targetSubjectsOf ex:p ; sh:property [ sh:path ex:p ; sh:datatype xsd:date ] .
ex:T sh:targetSubjectsOf ex:dt ; sh:property [ sh:path ex:dt ; sh:datatype xsd:dateTime ] .
ex:U sh:targetSubjectsOf ex:d ; sh:property [ sh:path ex:d ; sh:datatype xsd:duration ] .
ex:V sh:targetSubjectsOf ex:s ; sh:property [ sh:path ex:s ; sh:datatype xsd:string ] .
ex:W sh:targetSubjectsOf ex:l ; sh:property [ sh:path ex:l ; sh:datatype <http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> ] .
ex:X sh:targetSubjectsOf ex:n ; sh:property [ sh:path ex:n ; sh:datatype xsd:nonNegativeInteger ] .
ex:Y sh:targetSubjectsOf ex:h ; sh:property [ sh:path ex:h ; sh:datatype xsd:hexBinary ] .
ex:Z sh:targetSubjectsOf ex:y ; sh:property [ sh:path ex:y ; sh:datatype xsd:gYear ] .`)
	for _, c := range []struct {
		triple string
		ok     bool
	}{
		{`ex:a ex:p "2020-01-31"^^xsd:date`, true},
		{`ex:a ex:p "2020-01-01Z"^^xsd:date`, true},
		{`ex:a ex:p "2020-02-29"^^xsd:date`, true},
		{`ex:a ex:p "2021-02-29"^^xsd:date`, false},
		{`ex:a ex:p "2020-1-1"^^xsd:date`, false},
		{`ex:a ex:p "2020-01-01"`, false},
		{`ex:a ex:p "2020-01-01T00:00:00"^^xsd:date`, false},
		{`ex:a ex:dt "2020-01-01T10:00:00.5+02:00"^^xsd:dateTime`, true},
		{`ex:a ex:dt "2020-01-01"^^xsd:dateTime`, false},
		{`ex:a ex:dt "2020-01-01T25:00:00"^^xsd:dateTime`, false},
		{`ex:a ex:d "P1Y2M3DT4H5M6.5S"^^xsd:duration`, true},
		{`ex:a ex:d "P"^^xsd:duration`, false},
		{`ex:a ex:d "PT"^^xsd:duration`, false},
		{`ex:a ex:s "plain"`, true},
		{`ex:a ex:s "tagged"@en`, false},
		{`ex:a ex:l "tagged"@en`, true},
		{`ex:a ex:l "plain"`, false},
		{`ex:a ex:n "0"^^xsd:nonNegativeInteger`, true},
		{`ex:a ex:n "-1"^^xsd:nonNegativeInteger`, false},
		{`ex:a ex:h "0FB7"^^xsd:hexBinary`, true},
		{`ex:a ex:h "0FB"^^xsd:hexBinary`, false},
		{`ex:a ex:y "2020"^^xsd:gYear`, true},
		{`ex:a ex:y "2020-01"^^xsd:gYear`, false},
		{`ex:a ex:y <http://example.org/2020>`, false},
	} {
		r := shapes.Validate(graph(t, c.triple+" ."))
		require.Equal(t, c.ok, r.Conforms, "%s: %v", c.triple, results(r))
	}
}

func TestSeverityString(t *testing.T) {
	require.Equal(t, "sh:Violation", shacl.Violation.String())
	require.Equal(t, "sh:Warning", shacl.Warning.String())
	require.Equal(t, "sh:Info", shacl.Info.String())
}
