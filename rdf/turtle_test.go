package rdf_test

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// parseLines parses doc and returns its triples as sorted N-Triples lines, blank node labels
// renamed _:1, _:2… in order of first appearance in the sorted-by-position output.
func parseLines(t *testing.T, f rdf.Format, base, doc string) []string {
	t.Helper()
	var lines []string
	err := rdf.Parse(strings.NewReader(doc), f, base, func(tr rdf.Triple) error {
		lines = append(lines, tr.NTriples())
		return nil
	})
	require.NoError(t, err)
	return normBlanks(lines)
}

var blankRE = regexp.MustCompile(`_:[A-Za-z0-9_.-]+`)

// parseLinesAnyOrder is parseLines for a parser whose triples' order is not the document's (a
// JSON-LD batch comes in node map order): blank nodes are named in the order of the lines
// sorted with every blank node written "_:", which names them alike whatever the order the
// triples came in, as long as the sorted lines tell the nodes apart.
func parseLinesAnyOrder(t *testing.T, f rdf.Format, base, doc string) []string {
	t.Helper()
	var lines []string
	err := rdf.Parse(strings.NewReader(doc), f, base, func(tr rdf.Triple) error {
		lines = append(lines, tr.NTriples())
		return nil
	})
	require.NoError(t, err)
	anon := func(l string) string { return blankRE.ReplaceAllString(l, "_:") }
	sort.SliceStable(lines, func(i, j int) bool { return anon(lines[i]) < anon(lines[j]) })
	return normBlanks(lines)
}

func normBlanks(lines []string) []string {
	names := map[string]string{}
	for i, l := range lines {
		lines[i] = blankRE.ReplaceAllStringFunc(l, func(b string) string {
			if n, ok := names[b]; ok {
				return n
			}
			names[b] = "_:" + string(rune('A'+len(names)))
			return names[b]
		})
	}
	sort.Strings(lines)
	return lines
}

// turtleSyntaxDoc uses every Turtle form once: the directives both ways, numbers, booleans,
// the four string forms, language tags, datatypes, collections, nested blank nodes, escapes in
// prefixed names and relative IRIs against @base.
const turtleSyntaxDoc = `@base <http://example.org/dir/doc> .
@prefix : <#> .
PREFIX ex: <http://example.org/ns/>
prefix xsd: <http://www.w3.org/2001/XMLSchema#>
<s> a ex:Thing ;
  ex:int 42, -7, +3 ; ex:dec 3.14, .5, -0.0 ; ex:dbl 1e10, 1.5E-3, 2.e1 ;
  ex:bool true, false ;
  ex:str "a \"q\" \\ \n\t\u00e9\U0001F600", 'single', """long "with" ""quotes""
line two""", '''x''' ;
  ex:lang "hei"@NB, "x"@en-GB-oed ;
  ex:typed "2024-01-01"^^xsd:date, "s"^^<http://www.w3.org/2001/XMLSchema#string> ;
  ex:list ( 1 [ ex:p :o ] ( ) ), () ;
  ex:nested [ ex:a [ ex:b "deep" ; ] ; ] ;
  ex:esc ex:a\/b, ex:%20x, :frag ;
  ex:rel <../up>, <?q>, <#f>, <//other.org/x> ;
.
[] ex:p ex:o .
[ ex:q 1 ] .
_:lbl ex:r _:lbl .
ex:s.1 ex:p ex:o.
ex:s ex:p 1.
`

// turtleSyntaxTriples is turtleSyntaxDoc as N-Triples (blank node labels aside).
var turtleSyntaxTriples = []string{
	`<http://example.org/dir/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/ns/Thing> .`,
	`<http://example.org/dir/s> <http://example.org/ns/int> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
	`<http://example.org/dir/s> <http://example.org/ns/int> "-7"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
	`<http://example.org/dir/s> <http://example.org/ns/int> "+3"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
	`<http://example.org/dir/s> <http://example.org/ns/dec> "3.14"^^<http://www.w3.org/2001/XMLSchema#decimal> .`,
	`<http://example.org/dir/s> <http://example.org/ns/dec> ".5"^^<http://www.w3.org/2001/XMLSchema#decimal> .`,
	`<http://example.org/dir/s> <http://example.org/ns/dec> "-0.0"^^<http://www.w3.org/2001/XMLSchema#decimal> .`,
	`<http://example.org/dir/s> <http://example.org/ns/dbl> "1e10"^^<http://www.w3.org/2001/XMLSchema#double> .`,
	`<http://example.org/dir/s> <http://example.org/ns/dbl> "1.5E-3"^^<http://www.w3.org/2001/XMLSchema#double> .`,
	`<http://example.org/dir/s> <http://example.org/ns/dbl> "2.e1"^^<http://www.w3.org/2001/XMLSchema#double> .`,
	`<http://example.org/dir/s> <http://example.org/ns/bool> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .`,
	`<http://example.org/dir/s> <http://example.org/ns/bool> "false"^^<http://www.w3.org/2001/XMLSchema#boolean> .`,
	"<http://example.org/dir/s> <http://example.org/ns/str> \"a \\\"q\\\" \\\\ \\n\\t\u00e9\U0001F600\" .",
	`<http://example.org/dir/s> <http://example.org/ns/str> "single" .`,
	`<http://example.org/dir/s> <http://example.org/ns/str> "long \"with\" \"\"quotes\"\"\nline two" .`,
	`<http://example.org/dir/s> <http://example.org/ns/str> "x" .`,
	`<http://example.org/dir/s> <http://example.org/ns/lang> "hei"@nb .`,
	`<http://example.org/dir/s> <http://example.org/ns/lang> "x"@en-gb-oed .`,
	`<http://example.org/dir/s> <http://example.org/ns/typed> "2024-01-01"^^<http://www.w3.org/2001/XMLSchema#date> .`,
	`<http://example.org/dir/s> <http://example.org/ns/typed> "s" .`,
	`<http://example.org/dir/s> <http://example.org/ns/list> _:l1 .`,
	`_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
	`_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:l2 .`,
	`_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> _:b .`,
	`_:b <http://example.org/ns/p> <http://example.org/dir/doc#o> .`,
	`_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:l3 .`,
	`_:l3 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .`,
	`_:l3 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .`,
	`<http://example.org/dir/s> <http://example.org/ns/list> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .`,
	`<http://example.org/dir/s> <http://example.org/ns/nested> _:n1 .`,
	`_:n1 <http://example.org/ns/a> _:n2 .`,
	`_:n2 <http://example.org/ns/b> "deep" .`,
	`<http://example.org/dir/s> <http://example.org/ns/esc> <http://example.org/ns/a/b> .`,
	`<http://example.org/dir/s> <http://example.org/ns/esc> <http://example.org/ns/%20x> .`,
	`<http://example.org/dir/s> <http://example.org/ns/esc> <http://example.org/dir/doc#frag> .`,
	`<http://example.org/dir/s> <http://example.org/ns/rel> <http://example.org/up> .`,
	`<http://example.org/dir/s> <http://example.org/ns/rel> <http://example.org/dir/doc?q> .`,
	`<http://example.org/dir/s> <http://example.org/ns/rel> <http://example.org/dir/doc#f> .`,
	`<http://example.org/dir/s> <http://example.org/ns/rel> <http://other.org/x> .`,
	`_:e <http://example.org/ns/p> <http://example.org/ns/o> .`,
	`_:q <http://example.org/ns/q> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
	`_:lbl <http://example.org/ns/r> _:lbl .`,
	`<http://example.org/ns/s.1> <http://example.org/ns/p> <http://example.org/ns/o> .`,
	`<http://example.org/ns/s> <http://example.org/ns/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
}

func TestTurtleSyntax(t *testing.T) {
	got := parseLines(t, rdf.Turtle, "http://ignored.example/", turtleSyntaxDoc)
	want := normBlanks(slices.Clone(turtleSyntaxTriples))
	require.Len(t, got, len(want))
	// Blank labels differ in numbering between the two lists; compare without them, then
	// the blank structure through the count of distinct nodes.
	require.Equal(t, withoutBlankLabels(want), withoutBlankLabels(got))
}

// withoutBlankLabels is ls sorted, with every blank node label written _:x.
func withoutBlankLabels(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = blankRE.ReplaceAllString(l, "_:x")
	}
	sort.Strings(out)
	return out
}

func TestTurtleRelativeWithoutBase(t *testing.T) {
	got := parseLines(t, rdf.Turtle, "http://example.com/catalog.ttl", `<#c> <p> <../x> .`)
	require.Equal(t, []string{`<http://example.com/catalog.ttl#c> <http://example.com/p> <http://example.com/x> .`}, got)
}

func TestTriGAndNQuadsMergeGraphs(t *testing.T) {
	trig := `@prefix ex: <http://example.org/> .
ex:g1 { ex:a ex:p ex:b . ex:a ex:p "x" }
GRAPH ex:g2 { ex:c ex:p ex:d }
{ ex:e ex:p ex:f . }
ex:h ex:p ex:i .`
	got := parseLines(t, rdf.TriG, "", trig)
	require.Len(t, got, 5)
	nq := "<http://example.org/a> <http://example.org/p> <http://example.org/b> <http://example.org/g1> .\n" +
		"_:x <http://example.org/p> \"v\"@en _:g .\n<http://example.org/a> <http://example.org/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"
	require.Len(t, parseLines(t, rdf.NQuads, "", nq), 3)
}

func TestTurtleErrors(t *testing.T) {
	for doc, want := range map[string]string{
		"<http://a> <http://b> \"x\n\" .":               "[line: 1, col: 25] line break in a string",
		"<a> <b> <c>":                                   "[line: 1, col: 12] expected '.' at the end of the triples, found end of input",
		"ex:a <b> <c> .":                                `[line: 1, col: 1] undefined prefix "ex"`,
		"@prefix ex: <http://e/> .\nex:a ex:b ex:c/d .": "[line: 2, col: 15] '/' is not allowed",
		"<a> <b> \"unterminated":                        "[line: 1, col: 9] unterminated string",
		"<a> <b> [ <c> <d> .":                           "[line: 1, col: 19] expected ']' closing the blank node",
		"<a> <b> <c d> .":                               "[line: 1, col: 11] Bad character in IRI (space)",
		"<a> <b> \"x\"@ .":                              "[line: 1, col: 12] empty language tag",
		"<a> <b> \"\\q\" .":                             `[line: 1, col: 10] bad escape \q`,
		"<a> <b> <c> .\n@foo <x> .":                     "[line: 2, col: 1] unknown directive @foo",
		"<a> <b> ( <c> ":                                "[line: 1, col: 15] expected ')' closing the collection",
		"<a> <b> \xff .":                                "invalid UTF-8",
		"<a> <b> <c> { }":                               "[line: 1, col: 13] expected '.' at the end of the triples",
		strings.Repeat("[ <p> ", 1100) + "<o>":          "nested",
	} {
		err := rdf.Parse(strings.NewReader(doc), rdf.Turtle, "", func(rdf.Triple) error { return nil })
		require.ErrorContains(t, err, want, doc)
		var se *rdf.SyntaxError
		require.ErrorAs(t, err, &se, doc)
	}
	for doc, want := range map[string]string{
		"<http://a> <http://b> <http://c>":              "expected '.'",
		"<http://a> <http://b> 1 .":                     "[line: 1, col: 23] expected an object",
		"ex:a <http://b> <http://c> .":                  "[line: 1, col: 1] expected an IRI or blank node",
		"<http://a> <http://b> \"\"\"x\"\"\" .":         "long strings are not N-Triples",
		"<http://a> <http://b> <http://c> <http://g> .": "expected '.'",
	} {
		err := rdf.Parse(strings.NewReader(doc), rdf.NTriples, "", func(rdf.Triple) error { return nil })
		require.ErrorContains(t, err, want, doc)
	}
}
