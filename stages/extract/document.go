package extract

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// ParseError is a catalog document that cannot be read as a DCAT-US catalog: where (1-based
// line and column of the byte at fault, 0 when it is about the shape rather than a position)
// and why.
type ParseError struct {
	Line, Column int
	Err          error

	offset int64 // of the byte at fault in the document (BOM excluded) when > 0 and Line is 0
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

// ErrDCATUS3 is the cause of a ParseError for a DCAT-US 3.0 catalog: its conformsTo is an
// object ({"@type": "Standard", "title": "DCAT-US 3.0"}), where DCAT-US 1.1 writes a URL.
var ErrDCATUS3 = errors.New("the document is a DCAT-US 3.0 catalog; DCAT-US 3.0 is not supported yet, only DCAT-US 1.1")

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// WalkCatalog streams the DCAT-US catalog document in r, calling fn with each element of its
// "dataset" array (0-based position, raw bytes as written) one at a time: the document is never
// held in memory whole. A leading UTF-8 BOM is skipped. A dataset nested deeper than
// MaxRecordDepth is a *ParseError naming it (the listing makes it an error row instead). It returns a *ParseError when the
// document is not JSON (with the line and column of the syntax error when r is an io.ReadSeeker),
// is a top-level array (ErrLegacyArray), is not an object with a "dataset" array, or has more
// than one "dataset" member (ErrDuplicateDataset, found only after the first array was walked:
// check a document with a walk that does nothing before acting on its records); fn's error stops
// the walk and is returned as is.
func WalkCatalog(r io.Reader, fn func(pos int, raw json.RawMessage) error) error {
	g := newShapeGuard(nil, false)
	return walkDocument(r, nil, g, false, func(dec *json.Decoder, pos int) error {
		var raw json.RawMessage
		from := dec.InputOffset()
		if err := dec.Decode(&raw); err != nil {
			return parseErr(err)
		}
		if p := g.problem(from, dec.InputOffset()); p != nil {
			return &ParseError{Err: fmt.Errorf("dataset #%d %v", pos+1, p)}
		}
		return fn(pos, raw)
	})
}

// element decodes the element of the dataset array at pos from dec, and acts on it. Its error
// stops the walk; it returns a *ParseError when the element is not JSON.
type element func(dec *json.Decoder, pos int) error

// walkDocument is WalkCatalog with each element decoded by each (only11: refusing a DCAT-US
// 3.0 catalog), the document read through
// the guard g (its reader is set here). When rec is not nil, the document is read through it
// too, and it is made to forget what precedes each member of the catalog object it skips.
func walkDocument(r io.Reader, rec *recorder, g *shapeGuard, only11 bool, each element) error {
	br := bufio.NewReaderSize(r, 64<<10)
	skipped := 0
	if head, _ := br.Peek(3); bytes.Equal(head, utf8BOM) {
		_, _ = br.Discard(3)
		skipped = 3
	}
	g.r = br
	var dec *json.Decoder
	if rec != nil {
		rec.r = g
		dec = json.NewDecoder(rec)
	} else {
		dec = json.NewDecoder(g)
	}
	err := walk(dec, rec, only11, each)
	var perr *ParseError
	if !errors.As(err, &perr) {
		return err
	}
	rs, ok := r.(io.ReadSeeker)
	if !ok || perr.Line != 0 {
		return perr
	}
	var syn *json.SyntaxError
	switch {
	case errors.As(perr.Err, &syn):
		perr.Line, perr.Column = syntaxPosition(rs, skipped)
	case perr.offset > 0:
		perr.Line, perr.Column = offsetPosition(rs, skipped, perr.offset)
	}
	return perr
}

// maxPositionScan bounds the bytes read to place a syntax error.
const maxPositionScan = 256 << 20

// syntaxPosition returns the line and column of the first syntax error in rs. The offsets that
// json.Decoder reports are relative to the value it was decoding, so the document is scanned
// again from its start (up to maxPositionScan bytes; 0, 0 beyond).
func syntaxPosition(rs io.ReadSeeker, skipped int) (line, col int) {
	if _, err := rs.Seek(int64(skipped), io.SeekStart); err != nil {
		return 0, 0
	}
	data, err := io.ReadAll(io.LimitReader(rs, maxPositionScan))
	if err != nil {
		return 0, 0
	}
	var syn *json.SyntaxError
	if !errors.As(json.Unmarshal(data, new(json.RawMessage)), &syn) {
		return 0, 0
	}
	return lineColumn(data[:min(int(syn.Offset), len(data))]) // the offset counts the byte at fault
}

// offsetPosition returns the line and column of the byte at offset (0-based, after the skipped
// BOM) in rs, or 0, 0 when it cannot be read.
func offsetPosition(rs io.ReadSeeker, skipped int, offset int64) (line, col int) {
	if offset >= maxPositionScan {
		return 0, 0
	}
	if _, err := rs.Seek(int64(skipped), io.SeekStart); err != nil {
		return 0, 0
	}
	data, err := io.ReadAll(io.LimitReader(rs, offset+1))
	if err != nil || int64(len(data)) != offset+1 {
		return 0, 0
	}
	return lineColumn(data)
}

// lineColumn returns the 1-based line and column of the last byte of prefix, a document's start.
func lineColumn(prefix []byte) (line, col int) {
	line = 1 + bytes.Count(prefix, []byte{'\n'})
	return line, max(1, len(prefix)-(bytes.LastIndexByte(prefix, '\n')+1))
}

// refuseDCATUS3 reads the catalog's conformsTo from dec and returns a *ParseError wrapping
// ErrDCATUS3 when it is an object, DCAT-US 3.0's way (1.1 writes a URL).
func refuseDCATUS3(dec *json.Decoder) error {
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return parseErr(err)
	}
	if !bytes.HasPrefix(v, []byte("{")) {
		return nil
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, v) // v is valid JSON: the decoder read it
	return &ParseError{Err: fmt.Errorf("%w (conformsTo %s)", ErrDCATUS3, compact.Bytes()[:min(compact.Len(), 200)])}
}

// walk walks the catalog object; only11 refuses a DCAT-US 3.0 catalog (ErrDCATUS3).
func walk(dec *json.Decoder, rec *recorder, only11 bool, each element) error {
	tok, err := dec.Token()
	if err != nil {
		return parseErr(err)
	}
	switch tok {
	case json.Delim('['):
		return &ParseError{Err: ErrLegacyArray}
	case json.Delim('{'):
	default:
		return &ParseError{Err: fmt.Errorf("the document is a JSON %s, not a DCAT-US catalog object", kind(tok))}
	}
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return parseErr(err)
		}
		if key, _ := tok.(string); key == "dataset" {
			if found {
				// The decoder stands just after the key; point at its opening quote (exact unless
				// the key was written with escapes).
				return &ParseError{Err: ErrDuplicateDataset, offset: dec.InputOffset() - int64(len(`"dataset"`))}
			}
			found = true
			if err := walkDatasets(dec, each); err != nil {
				return err
			}
			continue
		}
		if key, _ := tok.(string); key == "conformsTo" && only11 {
			if err := refuseDCATUS3(dec); err != nil {
				return err
			}
			rec.forget(dec.InputOffset())
			continue
		}
		if err := dec.Decode(new(skipValue)); err != nil {
			return parseErr(err)
		}
		rec.forget(dec.InputOffset())
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return parseErr(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("unexpected data after the catalog object")
		}
		return parseErr(err)
	}
	if !found {
		return &ParseError{Err: errors.New(`not a DCAT-US catalog: the object has no "dataset" array`)}
	}
	return nil
}

func walkDatasets(dec *json.Decoder, each element) error {
	tok, err := dec.Token()
	if err != nil {
		return parseErr(err)
	}
	if tok != json.Delim('[') {
		return &ParseError{Err: fmt.Errorf(`not a DCAT-US catalog: "dataset" is a JSON %s, not an array`, kind(tok))}
	}
	for pos := 0; dec.More(); pos++ {
		if err := each(dec, pos); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return parseErr(err)
	}
	return nil
}

func parseErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = errors.New("unexpected end of the document")
	}
	return &ParseError{Err: err}
}

func kind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('[') {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

// Entry is one element of a catalog's dataset array. Messages number datasets from 1 ("dataset
// #1" is the first element), as a person reading the file counts them; Position is 0-based.
type Entry struct {
	Position   int
	Identifier string          // verbatim (never trimmed); empty when Err is set
	Title      string          // for error messages about records without an identifier
	Raw        json.RawMessage // the element exactly as the publisher wrote it
	Err        error           // why the element cannot be keyed: not an object, missing or blank identifier
	// Structure is set when the element repeats a key or nests deeper than MaxRecordDepth
	// (walkEntries only); Raw is then what the decoder read, a deep value replaced by 0.
	Structure *StructureError
}

// Identify fills in an entry's identifier: the "identifier" string, or the "@id" of an
// identifier object (DCAT-US 3.0). Missing, blank or other shapes are an error.
func Identify(pos int, raw json.RawMessage) Entry {
	var d keyFields
	return identify(pos, raw, &d, json.Unmarshal(raw, &d))
}

// keyFields are the members of a dataset that identify it.
type keyFields struct {
	Identifier json.RawMessage `json:"identifier"`
	Title      any             `json:"title"`
}

// identify is Identify of raw, given its keyFields d as decoded and the decoding's error.
func identify(pos int, raw json.RawMessage, d *keyFields, err error) Entry {
	e := Entry{Position: pos, Raw: raw}
	if err != nil {
		var kindErr *json.UnmarshalTypeError
		if errors.As(err, &kindErr) && kindErr.Field == "" {
			e.Err = fmt.Errorf("dataset #%d is a JSON %s, not an object", pos+1, kindErr.Value)
			return e
		}
		// A field of the wrong type elsewhere does not matter here; look at identifier alone.
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			e.Err = fmt.Errorf("dataset #%d: %v", pos+1, err)
			return e
		}
		d.Identifier = m["identifier"]
	}
	e.Title, _ = d.Title.(string)
	var id any
	if len(d.Identifier) > 0 {
		_ = json.Unmarshal(d.Identifier, &id)
	}
	switch v := id.(type) {
	case string:
		e.Identifier = v
	case map[string]any:
		e.Identifier, _ = v["@id"].(string)
	case nil:
	default:
		e.Err = fmt.Errorf("dataset #%d%s: identifier must be a string or an object with @id, not %s",
			pos+1, e.titled(), strings.TrimSpace(string(d.Identifier)))
		return e
	}
	if strings.TrimSpace(e.Identifier) == "" {
		e.Identifier = ""
		e.Err = fmt.Errorf("dataset #%d%s has no identifier (missing or blank)", pos+1, e.titled())
	}
	return e
}

func (e *Entry) titled() string {
	if e.Title == "" {
		return ""
	}
	return fmt.Sprintf(" (title %q)", e.Title)
}

// named names the entry in a message: its identifier (cut to 256 bytes), else its title.
func (e *Entry) named() string {
	if e.Identifier == "" {
		return e.titled()
	}
	id := e.Identifier
	if len(id) > 256 {
		cut := 256
		for cut > 0 && !utf8.RuneStart(id[cut]) {
			cut--
		}
		id = id[:cut] + "…"
	}
	return fmt.Sprintf(" (identifier %q)", id)
}
