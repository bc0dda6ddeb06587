package rdf_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

// endless repeats one byte for ever: a term that never ends.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// graphDoc is the S3 shape: a top-level @graph of n node objects, each with a literal and an
// IRI object, optionally after ctx (an "@context" member) or before it.
func graphDoc(n int, ctxFirst, ctxLast string) []byte {
	var b bytes.Buffer
	b.WriteString("{" + ctxFirst + `"@graph":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"@id":"http://e/n%d","http://e/p":[{"@value":"value %d"}],"http://e/q":{"@id":"http://e/o%d"}}`, i, i, i)
	}
	b.WriteString("]" + ctxLast + "}")
	return b.Bytes()
}

// TestJSONLDStreamsGraph (S3): a JSON-LD document's top-level @graph is converted node by node,
// so triples come while most of the document is still unread (it was read whole, then held as
// a tree several times its size: 7.75 GB for 250 MB).
func TestJSONLDStreamsGraph(t *testing.T) {
	const n = 20_000
	doc := graphDoc(n, "", "")
	cr := &countingReader{r: bytes.NewReader(doc)}
	var firstAt int64 = -1
	triples := 0
	err := rdf.ParseWith(cr, rdf.JSONLD, "", rdf.Options{MaxTermBytes: 64 << 10}, func(rdf.Triple) error {
		if firstAt < 0 {
			firstAt = cr.n
		}
		triples++
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 2*n, triples)
	require.Less(t, firstAt, int64(len(doc)/10), "the first triple comes after reading %d of %d bytes", firstAt, len(doc))
}

// TestJSONLDStreamSameGraph: streaming gives the triples the whole-document conversion gives,
// with an @context first, an @context after a short @graph, and blank node labels shared
// between the nodes of the array (the triples of a batch of node objects come in node map
// order, not the document's).
func TestJSONLDStreamSameGraph(t *testing.T) {
	const ctx = `"@context":{"ex":"http://e/","title":{"@id":"ex:title","@language":"en"},"ref":{"@id":"ex:ref","@type":"@id"}}`
	const nodes = `"@graph":[{"@id":"ex:a","title":"A","ref":"_:x"},{"@id":"_:x","title":"X"},{"title":"anon"}]`
	want := []string{
		`<http://e/a> <http://e/ref> _:A .`,
		`<http://e/a> <http://e/title> "A"@en .`,
		`_:A <http://e/title> "X"@en .`,
		`_:B <http://e/title> "anon"@en .`,
	}
	for name, doc := range map[string]string{
		"context first": "{" + ctx + "," + nodes + "}",
		"context last":  "{" + nodes + "," + ctx + "}",
		"top-level @id": `{"@id":"http://e/g",` + ctx + "," + nodes + "}",
	} {
		require.Equal(t, want, parseLinesAnyOrder(t, rdf.JSONLD, "", doc), name)
	}
}

// TestJSONLDNodeCap (S3, D8): a node object over the JSON-LD node cap (2×MaxTermBytes) is
// refused once about that much is read, not read whole.
func TestJSONLDNodeCap(t *testing.T) {
	const termCap = 2 << 20 // over the 2 MiB capReader keeps for positions
	cr := &countingReader{r: io.MultiReader(strings.NewReader(`{"@graph":[{"@id":"http://e/1","http://e/p":"`), endless('a'))}
	err := rdf.ParseWith(cr, rdf.JSONLD, "", rdf.Options{MaxTermBytes: termCap}, func(rdf.Triple) error { return nil })
	var se *rdf.SyntaxError
	require.ErrorAs(t, err, &se)
	require.ErrorContains(t, err, "over the JSON-LD node cap of 4194304 bytes")
	require.Equal(t, [2]int{1, 12}, [2]int{se.Line, se.Col}, "where the node object starts")
	require.ErrorContains(t, err, "--max-record-bytes")
	require.Less(t, cr.n, int64(2*termCap+1<<20), "bytes read before the refusal")

	// A term under the node cap but over the term cap is refused after conversion.
	doc := `{"@graph":[{"@id":"http://e/1","http://e/p":"` + strings.Repeat("a", termCap+1) + `"}]}`
	err = rdf.ParseWith(strings.NewReader(doc), rdf.JSONLD, "", rdf.Options{MaxTermBytes: termCap}, func(rdf.Triple) error { return nil })
	require.ErrorContains(t, err, "over the term cap of 2097152 bytes")
}

// TestTermCap (D8): a literal, IRI or name longer than the term cap stops every parser as soon as
// it passes the cap, after reading not much more than the cap (a 300 MB literal was held at
// 4.6 times its size before the record cap fired).
func TestTermCap(t *testing.T) {
	const termCap = 256 << 10
	const rdfxml = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://e/">`
	for _, c := range []struct {
		f      rdf.Format
		prefix string
		fill   byte
	}{
		{rdf.Turtle, `<http://a> <http://b> "`, 'a'},
		{rdf.Turtle, `<http://a> <http://b> """`, 'a'},
		{rdf.Turtle, `<http://a> <http://b> <http://`, 'a'},
		{rdf.Turtle, `@prefix ex: <http://e/> . ex:a ex:b ex:`, 'a'},
		{rdf.Turtle, `<http://a> <http://b> _:`, 'a'},
		{rdf.Turtle, `<http://a> <http://b> `, '1'},
		{rdf.Turtle, `<http://a> <http://b> "x"@`, 'a'},
		{rdf.NTriples, `<http://a> <http://b> "`, 'a'},
		{rdf.NTriples, `<http://a> <http://b> <http://`, 'a'},
		{rdf.NQuads, `<http://a> <http://b> <http://c> <http://`, 'a'},
		{rdf.RDFXML, rdfxml + `<rdf:Description rdf:about="x"><ex:p>`, 'a'},
		{rdf.RDFXML, rdfxml + `<rdf:Description rdf:about="http://`, 'a'},
		{rdf.RDFXML, rdfxml + `<rdf:Description rdf:about="x"><ex:p rdf:parseType="Literal">`, 'a'},
		{rdf.JSONLD, `{"@id":"http://e/1","http://e/p":"`, 'a'},
	} {
		cr := &countingReader{r: io.MultiReader(strings.NewReader(c.prefix), endless(c.fill))}
		err := rdf.ParseWith(cr, c.f, "", rdf.Options{MaxTermBytes: termCap}, func(rdf.Triple) error { return nil })
		var se *rdf.SyntaxError
		require.ErrorAs(t, err, &se, c.prefix)
		require.ErrorContains(t, err, "--max-record-bytes", c.prefix)
		require.Less(t, cr.n, int64(2*termCap+1<<20), "%s: bytes read before the refusal", c.prefix)
	}

	// A literal of exactly the cap is read.
	lines := parseLines(t, rdf.NTriples, "", `<http://a> <http://b> "`+strings.Repeat("a", rdf.DefaultMaxTermBytes)+`" .`)
	require.Len(t, lines, 1)
}

// TestJSONLDManyValues: a node object with thousands of values of one property (a catalog's
// dcat:dataset references) gives every triple once; it is converted in parts (json-gold's node
// map checks each value against all before it), and a blank node without @id stays one node.
func TestJSONLDManyValues(t *testing.T) {
	var refs, dups []string
	for i := range 2500 {
		refs = append(refs, fmt.Sprintf(`{"@id":"http://e/d%d"}`, i))
		dups = append(dups, `{"@id":"http://e/same"}`)
	}
	doc := `{"@graph":[{"@id":"http://e/cat","http://e/ds":[` + strings.Join(refs, ",") + `],"http://e/t":"c"},` +
		`{"http://e/ds":[` + strings.Join(refs, ",") + `]},{"@id":"http://e/x","http://e/ds":[` + strings.Join(dups, ",") + `]}]}`
	distinct, blanks := map[string]bool{}, map[string]bool{}
	for _, l := range parseLines(t, rdf.JSONLD, "", doc) { // a graph keeps a repeated triple once
		distinct[l] = true
		if strings.HasPrefix(l, "_:") {
			blanks[strings.Fields(l)[0]] = true
		}
	}
	require.Equal(t, 2500+1+2500+1, len(distinct))
	require.Len(t, blanks, 1, "the node without @id is one blank node")
}

// TestJSONLDBatchesShareBlankNodes: node objects are turned into triples in batches (256 node
// objects at most), and a blank node named in one batch and described in the next is one node:
// a chain of 1,000 blank nodes, one node object each, stays one chain.
func TestJSONLDBatchesShareBlankNodes(t *testing.T) {
	const n = 1000
	var b strings.Builder
	b.WriteString(`{"@context":{"next":{"@id":"http://e/next","@type":"@id"}},"@graph":[{"@id":"http://e/head","next":"_:c0"}`)
	for i := range n {
		fmt.Fprintf(&b, `,{"@id":"_:c%d","next":"_:c%d"}`, i, i+1)
	}
	b.WriteString("]}")
	asSubject, asObject := map[string]int{}, map[string]int{}
	triples := 0
	err := rdf.Parse(strings.NewReader(b.String()), rdf.JSONLD, "", func(tr rdf.Triple) error {
		triples++
		if tr.S.IsBlank() {
			asSubject[tr.S.Value]++
		}
		if tr.O.IsBlank() {
			asObject[tr.O.Value]++
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, n+1, triples)
	require.Len(t, asObject, n+1, "c0 … c1000")
	require.Len(t, asSubject, n)
	for l := range asSubject {
		require.Equal(t, 1, asObject[l], "%s is the object of the link before it: one node across batches", l)
	}
}

// TestJSONLDTermCapPosition: a term over the term cap is refused at the position of its node
// object, though node objects are turned into triples in batches.
func TestJSONLDTermCapPosition(t *testing.T) {
	const termCap = 1 << 10
	doc := `{"@context":{},"@graph":[` + "\n" + `{"@id":"http://e/1","http://e/p":"a"},` + "\n" +
		`{"@id":"http://e/2","http://e/p":"` + strings.Repeat("a", termCap+1) + `"}]}`
	err := rdf.ParseWith(strings.NewReader(doc), rdf.JSONLD, "", rdf.Options{MaxTermBytes: termCap}, func(rdf.Triple) error { return nil })
	var se *rdf.SyntaxError
	require.ErrorAs(t, err, &se)
	require.ErrorContains(t, err, "over the term cap of 1024 bytes")
	// The position is where the decoder stood before the node object (the end of the one before
	// it), as for the node cap, not the start of the batch (line 1, column 25).
	require.Equal(t, [2]int{2, 38}, [2]int{se.Line, se.Col}, "at the second node object")
}
