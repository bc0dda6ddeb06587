package csw

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
)

// CSW namespaces (OGC 07-006r1 for 2.0.2, OGC 12-176r7 for 3.0) and the output schemas a
// harvest asks for.
const (
	cswNS202       = "http://www.opengis.net/cat/csw/2.0.2"
	cswNS30        = "http://www.opengis.net/cat/csw/3.0"
	cswSchemaGMD   = "http://www.isotc211.org/2005/gmd"
	cswSchemaFGDC  = "http://www.opengis.net/cat/csw/csdgm" // ArcGIS Geoportal, pycsw
	cswSchemaFGDC2 = "http://www.fgdc.gov"                  // some servers name FGDC so
	dcNS           = "http://purl.org/dc/elements/1.1/"
)

// MaxCSWDepth caps the element nesting of a CSW answer (ISO 19139 records nest about 30 deep):
// a deeper answer fails the job rather than growing the decoder's stack.
const MaxCSWDepth = 256

// cswPage is one GetRecords answer as read (readCSWPage).
type cswPage struct {
	matched, returned, next int // SearchResults' attributes; -1 when absent
	records                 []cswRecord
}

// cswRecord is one record of a GetRecords answer.
type cswRecord struct {
	identifier string // "" when the record has none (cswIdentifierPath)
	// xml is the record element as a standalone document (an XML declaration, the namespace
	// declarations in scope added to its start tag); nil when tooLarge.
	xml      []byte
	tooLarge bool
	size     int64 // its length in bytes, as served
	idSize   int64 // the identifier's length in bytes when it was longer than the extract.MaxKeyBytes kept, else 0
	root     xml.Name
}

// CSWExceptionError is an OWS ExceptionReport (OGC 06-121r3 §8) a CSW server answered with.
type CSWExceptionError struct {
	Code, Locator, Text string
}

// Error names the exception's code and locator and quotes its text, made one line (runs of
// white space, a stack trace's line ends and tabs, made one space) and cut at
// exceptionTextShown characters, ending in "…".
func (e *CSWExceptionError) Error() string {
	msg := "the server answered with an OWS ExceptionReport: exceptionCode " + strconv.Quote(e.Code)
	if e.Locator != "" {
		msg += " (locator " + strconv.Quote(e.Locator) + ")"
	}
	if text := strings.Join(strings.Fields(e.Text), " "); text != "" {
		text, _ = dcatus.Shorten(text, exceptionTextShown)
		msg += ": " + strconv.Quote(text)
	}
	return msg
}

// maxExceptionText bounds the ExceptionText kept for an error message, in bytes, and
// exceptionTextShown what the message quotes of it, in characters.
const (
	maxExceptionText   = 2000
	exceptionTextShown = 500
)

// tokenReader feeds an xml.Decoder one byte at a time (it is an io.ByteReader, so the decoder
// reads no further ahead than it needs and its InputOffset is exact) and bounds the tokens it
// may build: a run of text longer than limit (a text node of 100 MB, say) is cut there, the rest
// of it, up to the next "<", dropped and counted (dropped); any other token longer than limit (an
// attribute value, a comment, a CDATA section) is an error. The decoder thus never holds more
// than about limit bytes of one token.
type tokenReader struct {
	r       *bufio.Reader
	limit   int64
	run     int64 // bytes since the last '<' or '>'
	inText  bool  // the last of '<' and '>' seen is '>': the run is text content
	entity  bool  // inside a character or entity reference ('&' seen, ';' not yet)
	dropped int64 // bytes dropped so far
}

// errTokenTooLarge is a token other than text over tokenReader's limit.
var errTokenTooLarge = errors.New("an XML token (a tag, attribute value, comment or CDATA section) is over the record size cap")

func (t *tokenReader) ReadByte() (byte, error) {
	for {
		c, err := t.r.ReadByte()
		if err != nil {
			return c, err
		}
		switch c {
		case '<', '>':
			t.run, t.inText, t.entity = 0, c == '>', false
			return c, nil
		case '&':
			t.entity = true
		case ';':
			t.entity = false
		}
		t.run++
		if t.run <= t.limit {
			return c, nil
		}
		if !t.inText {
			return 0, errTokenTooLarge
		}
		if t.entity && t.run <= t.limit+64 { // let a reference end
			return c, nil
		}
		t.dropped++
	}
}

func (t *tokenReader) Read(p []byte) (int, error) {
	for i := range p {
		c, err := t.ReadByte()
		if err != nil {
			return i, err
		}
		p[i] = c
	}
	return len(p), nil
}

// nsDecl is a namespace declaration in scope: prefix "" is the default namespace.
type nsDecl struct {
	depth       int
	prefix, uri string
}

// pageRead is one reading of a GetRecords answer.
type pageRead struct {
	f      *os.File
	d      *xml.Decoder
	tr     *tokenReader
	limit  int
	depth  int
	decls  []nsDecl
	page   cswPage
	exc    *CSWExceptionError
	inExc  int // depth of the ExceptionText read, 0 outside
	result int // depth of SearchResults, 0 before it
	rec    *recordRead
	asked  cswAsked
	most   int  // the most records the page may hold (pageRead.bound), once SearchResults is read
	done   bool // a GetRecordById answer's first record is read: reading stops
}

// recordRead is the record being read.
type recordRead struct {
	start int64 // file offset of its "<"
	depth int
	root  xml.Name
	decls []nsDecl   // declarations in scope outside it
	path  []xml.Name // the elements below the root, to the one being read
	keys  []*keyRead // its key fields (keyFields)
	cut   bool       // the tokenReader dropped text inside it
}

// readCSWPage reads a GetRecords answer (csw:GetRecordsResponse of CSW 2.0.2 or 3.0; or a
// GetRecordById answer, whose records are the root's children, with a matched count of 0) from f,
// a token at a time: the SearchResults attributes and each record, cut out of f byte for byte
// with the namespace declarations it inherits (so Record.XML is the record as served). A record
// over limit bytes is tooLarge, never held. The records held are bounded while reading, by
// what the request asked (pageRead.bound): reading stops, with an error, at the first record
// past what the page may hold, so a page of a million records costs the memory of one page of
// maxRecords; a GetRecordById answer is read up to its first record. Errors: a
// *CSWExceptionError for an ExceptionReport, an answer that is not XML or not a
// GetRecordsResponse, has no SearchResults, holds more records than it may, nests deeper than
// MaxCSWDepth, or holds a token other than text over limit. A DOCTYPE's entities are never
// expanded (encoding/xml does not), so a reference to one is a syntax error.
func readCSWPage(f *os.File, limit int, asked cswAsked) (*cswPage, error) {
	tr := &tokenReader{r: bufio.NewReaderSize(f, 64<<10), limit: int64(limit)}
	p := &pageRead{f: f, d: xml.NewDecoder(tr), tr: tr, limit: limit, asked: asked, most: -1,
		page: cswPage{matched: -1, returned: -1, next: -1}}
	p.d.CharsetReader = charsetReader
	for !p.done {
		off := p.d.InputOffset() + tr.dropped
		tok, err := p.d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not a well-formed XML answer: %w", err)
		}
		if err := p.token(tok, off); err != nil {
			return nil, err
		}
	}
	switch {
	case p.exc != nil:
		return nil, p.exc
	case p.depth == 0 && p.result == 0 && len(p.page.records) == 0 && p.page.matched < 0:
		if p.rootSeen() {
			return nil, errors.New("the answer has no csw:SearchResults")
		}
		return nil, errors.New("the answer holds no XML element")
	}
	return &p.page, nil
}

func (p *pageRead) rootSeen() bool { return p.d.InputOffset() > 0 }

// token handles one token, read at file offset off.
func (p *pageRead) token(tok xml.Token, off int64) error {
	switch t := tok.(type) {
	case xml.StartElement:
		p.depth++
		if p.depth > MaxCSWDepth {
			return fmt.Errorf("elements nest deeper than %d levels", MaxCSWDepth)
		}
		return p.start(&t, off)
	case xml.CharData:
		if r := p.rec; r != nil {
			for _, k := range r.keys {
				k.text(len(r.path), t)
			}
		}
		if p.inExc > 0 && len(p.exc.Text) < maxExceptionText {
			p.exc.Text += string(t[:min(len(t), maxExceptionText-len(p.exc.Text))])
		}
	case xml.EndElement:
		if err := p.end(); err != nil {
			return err
		}
		for len(p.decls) > 0 && p.decls[len(p.decls)-1].depth == p.depth {
			p.decls = p.decls[:len(p.decls)-1]
		}
		p.depth--
	}
	return nil
}

// start handles a start element at p.depth.
func (p *pageRead) start(t *xml.StartElement, off int64) error {
	outer := p.decls
	for _, a := range t.Attr {
		switch {
		case a.Name.Space == "xmlns":
			p.decls = append(p.decls, nsDecl{depth: p.depth, prefix: a.Name.Local, uri: a.Value})
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			p.decls = append(p.decls, nsDecl{depth: p.depth, uri: a.Value})
		}
	}
	switch {
	case p.rec != nil:
		p.rec.descend(t)
	case p.depth == 1 && t.Name.Local == "ExceptionReport":
		p.exc = &CSWExceptionError{}
	case p.depth == 1 && t.Name.Local == "GetRecordByIdResponse": // its records are its children
		p.result, p.page.matched = 1, 0
	case p.depth == 1 && t.Name.Local != "GetRecordsResponse":
		return fmt.Errorf("not a GetRecords answer: its root element is %s", xmlName(t.Name))
	case p.exc != nil && t.Name.Local == "Exception" && p.exc.Code == "":
		p.exc.Code, p.exc.Locator = attr(t, "exceptionCode"), attr(t, "locator")
	case p.exc != nil && t.Name.Local == "ExceptionText" && p.exc.Text == "":
		p.inExc = p.depth
	case p.depth == 2 && t.Name.Local == "SearchResults":
		if p.result != 0 {
			return errors.New("the answer has a second csw:SearchResults")
		}
		p.result = p.depth
		var err error
		for _, a := range []struct {
			name string
			v    *int
		}{{"numberOfRecordsMatched", &p.page.matched}, {"numberOfRecordsReturned", &p.page.returned},
			{"nextRecord", &p.page.next}} {
			if *a.v, err = intAttr(t, a.name); err != nil {
				return err
			}
		}
		p.most = p.bound()
	case p.result != 0 && p.depth == p.result+1:
		if p.most >= 0 && len(p.page.records) >= p.most {
			return p.tooMany()
		}
		p.rec = newRecordRead(t.Name, off, p.depth, outer)
	}
	return nil
}

// end handles the end element at p.depth.
func (p *pageRead) end() error {
	if p.inExc == p.depth {
		p.inExc = 0
	}
	r := p.rec
	if r == nil {
		return nil
	}
	if p.depth > r.depth {
		r.ascend()
		return nil
	}
	p.rec = nil
	p.done = p.asked.byID // a GetRecordById answer: its first record is the one asked for
	end := p.d.InputOffset() + p.tr.dropped
	rec := cswRecord{size: end - r.start, root: r.root}
	rec.identifier, rec.idSize = recordKey(r.root.Local, r.keys)
	if r.cut || rec.size > int64(p.limit) {
		rec.tooLarge = true
		p.page.records = append(p.page.records, rec)
		return nil
	}
	raw := make([]byte, rec.size)
	if _, err := p.f.ReadAt(raw, r.start); err != nil {
		return fmt.Errorf("read record back: %w", err)
	}
	rec.xml = standalone(raw, r.decls)
	p.page.records = append(p.page.records, rec)
	return nil
}

// newRecordRead starts reading a record whose root element is name, at file offset off and
// depth, with the namespace declarations decls in scope outside it.
func newRecordRead(name xml.Name, off int64, depth int, decls []nsDecl) *recordRead {
	r := &recordRead{start: off, depth: depth, root: name, decls: decls}
	for _, f := range keyFields(name.Local) {
		r.keys = append(r.keys, &keyRead{keyField: f})
	}
	return r
}

// descend follows a child element below the record's root.
func (r *recordRead) descend(t *xml.StartElement) {
	r.path = append(r.path, t.Name)
	for _, k := range r.keys {
		k.start(r.path, t)
	}
}

// ascend leaves the element last descended into, ending a key field's occurrence there.
func (r *recordRead) ascend() {
	for _, k := range r.keys {
		k.end(len(r.path))
	}
	r.path = r.path[:len(r.path)-1]
}

// standalone makes a record element cut out of its answer a document of its own: an XML
// declaration (the bytes are the answer's, read as UTF-8 or converted by charsetReader's
// decoder: see readCSWPage) and, in its start tag, the namespace declarations in scope outside
// it that it does not make itself (the innermost of each prefix).
func standalone(raw []byte, decls []nsDecl) []byte {
	nameEnd := bytes.IndexAny(raw, " \t\r\n/>")
	if nameEnd < 0 {
		return raw
	}
	tagEnd := bytes.IndexByte(raw, '>')
	own := raw[:tagEnd+1]
	byPrefix := map[string]string{}
	for _, d := range decls {
		byPrefix[d.prefix] = d.uri
	}
	prefixes := make([]string, 0, len(byPrefix))
	for prefix := range byPrefix {
		prefixes = append(prefixes, prefix)
	}
	sort.Strings(prefixes)
	var add bytes.Buffer
	for _, prefix := range prefixes {
		attrName := "xmlns"
		if prefix != "" {
			attrName += ":" + prefix
		}
		if declares(own, attrName) {
			continue
		}
		add.WriteString(" " + attrName + `="`)
		_ = xml.EscapeText(&add, []byte(byPrefix[prefix]))
		add.WriteByte('"')
	}
	out := make([]byte, 0, len(raw)+add.Len()+40)
	out = append(out, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"...)
	out = append(out, raw[:nameEnd]...)
	out = append(out, add.Bytes()...)
	return append(out, raw[nameEnd:]...)
}

// declares reports whether the start tag tag has the attribute name (xmlns or xmlns:p).
func declares(tag []byte, name string) bool {
	for i := 0; ; {
		j := bytes.Index(tag[i:], []byte(name))
		if j < 0 {
			return false
		}
		j += i
		k := j + len(name)
		if j > 0 && isXMLSpace(tag[j-1]) {
			rest := bytes.TrimLeft(tag[k:], " \t\r\n")
			if len(rest) > 0 && rest[0] == '=' {
				return true
			}
		}
		i = k
	}
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// attr is the value of t's attribute local (any namespace), "" when absent.
func attr(t *xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// intAttr is the value of t's attribute local as a non-negative number; -1 when absent.
func intAttr(t *xml.StartElement, local string) (int, error) {
	v := strings.TrimSpace(attr(t, local))
	if v == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("csw:SearchResults %s=%q is not a count", local, v)
	}
	return n, nil
}

// xmlName writes a name as {namespace}local.
func xmlName(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// charsetReader lets an XML declaration name US-ASCII (a subset of UTF-8) or spell UTF-8
// "utf8"; any other encoding is refused: a CSW harvest reads UTF-8 answers (the
// encoding CSW servers use), since the records are cut out of the answer byte for byte.
func charsetReader(label string, r io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "us-ascii", "ascii", "utf8":
		return r, nil
	}
	return nil, fmt.Errorf("the answer declares encoding %q: a CSW harvest reads UTF-8 answers only", label)
}
