package catalog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ParseError is a catalog document that cannot be read as a DCAT-US catalog: where (1-based
// line and column of the byte at fault, 0 when it is about the shape rather than a position)
// and why.
type ParseError struct {
	Line, Column int
	Err          error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
	}
	return e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

// ErrDuplicateDataset is the cause of a ParseError for a catalog object with two "dataset"
// members: which one a reader takes differs between JSON parsers, so neither is trusted.
var ErrDuplicateDataset = errors.New(`the catalog has more than one "dataset" member`)

// ErrLegacyArray is the cause of a ParseError for a Project Open Data 1.0 catalog.
var ErrLegacyArray = errors.New("the document is a top-level JSON array (a Project Open Data 1.0 catalog); " +
	"only DCAT-US 1.1 catalogs, an object with a \"dataset\" array, are supported")

// ErrDCATUS3 is the cause of a ParseError for a DCAT-US 3.0 catalog read as DCAT-US 1.1
// ([Check]): its conformsTo is an object ({"@type": "Standard", "title": "DCAT-US 3.0"}), where
// DCAT-US 1.1 writes a URL. Such a source needs schema type "dcatus3.0" ([Check3]).
var ErrDCATUS3 = errors.New(`wrong schema type: the document is a DCAT-US 3.0 catalog, not DCAT-US 1.1; ` +
	`harvest it with schema type "dcatus3.0"`)

// ErrDCATUS11 is the cause of a ParseError for a DCAT-US 1.1 catalog read as DCAT-US 3.0
// ([Check3]): its conformsTo is a string (the Project Open Data v1.1 schema URL).
var ErrDCATUS11 = errors.New(`wrong schema type: the document is a DCAT-US 1.1 catalog, not DCAT-US 3.0; ` +
	`harvest it with schema type "dcatus1.1: federal" or "dcatus1.1: non-federal"`)

// DefaultMaxRecordBytes is the size cap, in bytes, of one dataset WalkCatalog holds: 16 MiB.
// A larger one is measured as it streams past, never held (fn gets a nil raw for it).
const DefaultMaxRecordBytes = 16 << 20

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// WalkCatalog streams the DCAT-US catalog document in r, calling fn with each element of its
// "dataset" array (0-based position, raw bytes as written) one at a time: the document is never
// held in memory whole, and an element larger than DefaultMaxRecordBytes is not held either (fn
// gets a nil raw for it). A leading UTF-8 BOM is skipped. A dataset nested deeper than
// MaxRecordDepth is a *ParseError naming it (EXTRACT's listing, through WalkEntries, makes it
// an error row instead). It returns a *ParseError when the document is not JSON (with the line and column of the syntax error), is a top-level array
// (ErrLegacyArray), is not an object with a "dataset" array, or has more than one "dataset"
// member (ErrDuplicateDataset, found only after the first array was walked: check a document
// with a walk that does nothing before acting on its records); fn's error stops the walk and is
// returned as is.
func WalkCatalog(r io.Reader, fn func(pos int, raw json.RawMessage) error) error {
	return walkDocument(r, DefaultMaxRecordBytes, newShapeGuard(nil, false), false, func(pos int, el *element) error {
		if el.structure != nil {
			return &ParseError{Err: fmt.Errorf("dataset #%d %v", pos+1, el.structure)}
		}
		return fn(pos, el.raw)
	})
}

// element is one element of a catalog's dataset array as the scanner read it.
type element struct {
	raw  json.RawMessage // its bytes as written; nil when it is larger than the walk's limit
	size int64           // its length in bytes
	// kind is the catalog member whose array holds the element: "dataset", or in a DCAT-US 3.0
	// walk also "service", "record" or "datasetSeries"; path is its JSON path in the document
	// (DCAT-US 3.0 walks only), e.g. "$.catalog[0].dataset[1]".
	kind, path string
	// identifier and title are the raw values of the members of those names (the last one, names
	// compared as encoding/json does, ignoring case) when the element is an object; kept only
	// for an element over the limit, up to maxFieldCapture bytes each.
	identifier, title json.RawMessage
	// structure is set when the element repeats a key or nests deeper than MaxRecordDepth (as
	// the walk's shapeGuard found); raw is then what the guard let through, a deep value
	// replaced by 0.
	structure *StructureError
}

// maxFieldCapture bounds the identifier and title kept of an element too large to keep.
const maxFieldCapture = 64 << 10

// walkDocument walks the catalog in r, calling each with every element of its dataset array,
// whose bytes are kept when they are at most limit (0: none are kept). The document is read
// through the guard g (its reader is set here), which notes each element's StructureError and
// keeps values nested too deeply from the scanner; only11 refuses a DCAT-US 3.0 catalog
// (ErrDCATUS3). Memory is bounded by limit and the readers' buffers, whatever the document.
func walkDocument(r io.Reader, limit int, g *shapeGuard, only11 bool, each func(pos int, el *element) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(3); bytes.Equal(head, utf8BOM) {
		_, _ = br.Discard(3)
	}
	g.r = br
	w := &catalogWalk{s: newJSONScanner(bufio.NewReaderSize(g, 64<<10)), g: g, limit: limit, only11: only11, each: each}
	return w.document()
}

// walkDocument3 is walkDocument for a DCAT-US 3.0 catalog (walk3.go): each gets every element
// of the record arrays of the catalog and of its nested catalogs, in document order, the
// elements of "service" and "datasetSeries" kept up to parentLimit bytes (when it is over
// limit) so that the datasets they embed can be lifted out.
func walkDocument3(r io.Reader, limit, parentLimit int, g *shapeGuard, each func(pos int, el *element) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(3); bytes.Equal(head, utf8BOM) {
		_, _ = br.Discard(3)
	}
	g.r, g.v3, g.level = br, true, 0
	w := &catalogWalk{s: newJSONScanner(bufio.NewReaderSize(g, 64<<10)), g: g, limit: limit, v3: true,
		parentLimit: parentLimit, each: each}
	return w.document()
}

// catalogWalk is one walk of a catalog document.
type catalogWalk struct {
	s      *jsonScanner
	g      *shapeGuard
	only11 bool
	// v3 walks a DCAT-US 3.0 catalog: the record arrays "dataset", "service", "record" and
	// "datasetSeries" of the catalog and, recursively, of the catalogs in its "catalog" array;
	// parentLimit, when over limit, is the limit of "service" and "datasetSeries" elements.
	v3          bool
	parentLimit int
	pos         int // the elements walked so far
	limit       int
	each        func(pos int, el *element) error
	key         capture // of the member names, reused
	whole       capture // of the elements, its buffer reused: each element's raw is a copy
	// ident and title are of an element's "identifier" and "title", their buffers reused: an
	// element too large to keep has copies.
	ident, title capture
}

func (w *catalogWalk) document() error {
	s := w.s
	c, err := s.skipSpace()
	if err != nil {
		return s.readErr(err)
	}
	switch c {
	case '[':
		return &ParseError{Err: ErrLegacyArray}
	case '{':
		_, _ = s.take()
	default:
		if err := s.value(); err != nil {
			return err
		}
		return &ParseError{Err: fmt.Errorf("the document is a JSON %s, not a DCAT-US catalog object", kind(c))}
	}
	found, err := w.members("$")
	if err != nil {
		return err
	}
	if _, err := s.skipSpace(); err != io.EOF {
		if err != nil {
			return err
		}
		_, _ = s.take()
		return s.errorAt(errors.New("unexpected data after the catalog object"), s.off-1)
	}
	if !found && w.v3 {
		return &ParseError{Err: errors.New(`not a DCAT-US 3.0 catalog: the object has none of the members ` +
			`"dataset", "service", "record", "datasetSeries" and "catalog"`)}
	}
	if !found {
		return &ParseError{Err: errors.New(`not a DCAT-US catalog: the object has no "dataset" array`)}
	}
	return nil
}

// members walks the members of a catalog object whose '{' was just taken, up to its '}'; at is
// the object's JSON path ("$" for the document). It reports whether the object has a record
// array ("dataset", or in a DCAT-US 3.0 walk any record array or "catalog").
func (w *catalogWalk) members(at string) (bool, error) {
	s := w.s
	found := false
	var arrays map[string]bool // DCAT-US 3.0: the record arrays met, each allowed once
	c, err := s.next()
	for err == nil && c != '}' {
		if c != '"' {
			return found, s.syntaxError(c, "looking for beginning of object key string")
		}
		line, col := s.line, int(s.off-1-s.lineStart)+1
		key := &w.key
		*key = capture{limit: maxKeyCapture, buf: append(key.buf[:0], '"')}
		s.caps = append(s.caps, key)
		err = s.str()
		s.caps = s.caps[:0]
		if err != nil {
			return found, err
		}
		if c, err = s.next(); err != nil {
			return found, err
		}
		if c != ':' {
			return found, s.syntaxError(c, "after object key")
		}
		switch name := recordArray(key, w.v3); {
		case name != "" && w.v3:
			if arrays[name] {
				return found, &ParseError{Line: line, Column: col, Err: fmt.Errorf(
					"the catalog at %s has more than one %q member", at, name)}
			}
			if arrays == nil {
				arrays = map[string]bool{}
			}
			arrays[name], found = true, true
			if name == "catalog" {
				err = w.catalogs(at)
			} else {
				err = w.datasets(name, at)
			}
		case name != "":
			if found {
				return found, &ParseError{Line: line, Column: col, Err: ErrDuplicateDataset}
			}
			found = true
			err = w.datasets(name, at)
		case w.only11 && isName(key, "conformsTo", false):
			err = w.refuseDCATUS3()
		case w.v3 && at == "$" && isName(key, "conformsTo", false):
			err = w.refuseDCATUS11()
		default:
			err = s.value()
		}
		if err != nil {
			return found, err
		}
		if c, err = s.next(); err != nil {
			return found, err
		}
		if c == ',' {
			c, err = s.next()
			if err == nil && c == '}' {
				return found, s.syntaxError(c, "looking for beginning of object key string")
			}
		} else if c != '}' {
			return found, s.syntaxError(c, "after object key:value pair")
		}
	}
	return found, err
}

// recordArray returns the name of the record array the member name in key is ("dataset"; in
// a DCAT-US 3.0 walk also "service", "record", "datasetSeries" and "catalog"), or "".
func recordArray(key *capture, v3 bool) string {
	if isName(key, "dataset", false) {
		return "dataset"
	}
	if !v3 {
		return ""
	}
	for _, name := range [...]string{"service", "record", "datasetSeries", "catalog"} {
		if isName(key, name, false) {
			return name
		}
	}
	return ""
}

// conformsTo scans the catalog's conformsTo value and returns its first byte and its first
// 200 bytes.
func (w *catalogWalk) conformsTo() (byte, *capture, error) {
	s := w.s
	c, err := s.skipSpace()
	if err != nil {
		return 0, nil, s.readErr(err)
	}
	cp := &capture{limit: 200}
	s.caps = append(s.caps[:0], cp)
	err = s.value()
	s.caps = s.caps[:0]
	return c, cp, err
}

// refuseDCATUS3 scans the catalog's conformsTo and returns a *ParseError wrapping ErrDCATUS3
// when it is an object, DCAT-US 3.0's way (1.1 writes a URL).
func (w *catalogWalk) refuseDCATUS3() error {
	c, cp, err := w.conformsTo()
	if err != nil || c != '{' {
		return err
	}
	shown := cp.buf
	var compact bytes.Buffer
	if !cp.over && json.Compact(&compact, cp.buf) == nil {
		shown = compact.Bytes()
	}
	return &ParseError{Err: fmt.Errorf("%w (conformsTo %s)", ErrDCATUS3, shown[:min(len(shown), 200)])}
}

// isName reports whether the raw member name in key (a capture of a JSON string, quotes
// included) is name, exactly or, with fold, ignoring case as encoding/json matches fields.
func isName(key *capture, name string, fold bool) bool {
	if key == nil || key.over {
		return false
	}
	return isRawName(key.buf, name, fold)
}

func isRawName(raw []byte, name string, fold bool) bool {
	if len(raw) < 2 {
		return false
	}
	if bytes.IndexByte(raw, '\\') >= 0 { // escaped: decode (rare)
		var k string
		if json.Unmarshal(raw, &k) != nil {
			return false
		}
		return k == name || (fold && strings.EqualFold(k, name))
	}
	k := raw[1 : len(raw)-1]
	if len(k) != len(name) {
		return fold && len(k) < 4*len(name) && strings.EqualFold(string(k), name) // non-ASCII folds
	}
	for i := range len(k) {
		a, b := k[i], name[i]
		if a != b && (!fold || a|0x20 != b|0x20 || a|0x20 < 'a' || a|0x20 > 'z') {
			return fold && a >= 0x80 && strings.EqualFold(string(k), name)
		}
	}
	return true
}

// datasets walks the value of the record array member name ("dataset", or in a DCAT-US 3.0
// walk "service", "record" or "datasetSeries") of the catalog object at path at.
func (w *catalogWalk) datasets(name, at string) error {
	s := w.s
	c, err := s.next()
	if err != nil {
		return err
	}
	if c != '[' {
		if err := s.valueFrom(c, nil); err != nil {
			return err
		}
		if w.v3 && c == 'n' { // null: no records
			return nil
		}
		return &ParseError{Err: fmt.Errorf(`not a DCAT-US catalog: %q is a JSON %s, not an array`, name, kind(c))}
	}
	if empty, err := s.openArray(); err != nil || empty {
		return err
	}
	for i := 0; ; i++ {
		limit := w.limit
		if w.parentLimit > limit && (name == "service" || name == "datasetSeries") {
			limit = w.parentLimit
		}
		el, err := w.element(limit)
		if err != nil {
			return err
		}
		el.kind = name
		if w.v3 {
			el.path = fmt.Sprintf("%s.%s[%d]", at, name, i)
		}
		pos := w.pos
		w.pos++
		if err := w.each(pos, el); err != nil {
			return err
		}
		if end, err := s.afterElement(); err != nil || end {
			return err
		}
	}
}

// element scans the next element of the dataset array, keeping its bytes up to the limit and,
// in case it is larger, its identifier and title.
func (w *catalogWalk) element(limit int) (*element, error) {
	s := w.s
	if _, err := s.skipSpace(); err != nil {
		return nil, s.readErr(err)
	}
	from := s.off
	whole := &w.whole
	*whole = capture{limit: limit, buf: whole.buf[:0]}
	s.caps = append(s.caps[:0], whole)
	var ident, title *capture
	c, err := s.take()
	if err == nil {
		err = s.valueFrom(c, func(key []byte) *capture {
			switch {
			case isRawName(key, "identifier", true):
				w.ident = capture{limit: maxFieldCapture, buf: w.ident.buf[:0]}
				ident = &w.ident
				return ident
			case isRawName(key, "title", true):
				w.title = capture{limit: maxFieldCapture, buf: w.title.buf[:0]}
				title = &w.title
				return title
			}
			return nil
		})
	}
	s.caps = s.caps[:0]
	if err != nil {
		return nil, err
	}
	el := &element{size: whole.n, structure: w.g.problem(from, s.off)}
	if !whole.over {
		el.raw = bytes.Clone(whole.buf)
		return el, nil
	}
	if ident != nil && !ident.over {
		el.identifier = bytes.Clone(ident.buf)
	}
	if title != nil && !title.over {
		el.title = bytes.Clone(title.buf)
	}
	return el, nil
}

func kind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
