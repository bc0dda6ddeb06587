package change

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// SourceHash returns the hex SHA-256 of record's canonical form: object keys sorted
// recursively (by Unicode code point), no insignificant whitespace, strings re-encoded from
// their decoded value without HTML escaping, numbers and array order kept as written. Two
// serialisations of the same record (key order, whitespace, \u escapes) hash alike, so a
// publisher re-ordering keys does not make every record look changed (corpus NOTES §9). It
// returns an error when record is not valid JSON.
func SourceHash(record []byte) (string, error) {
	c := canonicalizers.Get().(*canonicalizer)
	defer canonicalizers.Put(c)
	c.buf.Reset()
	if err := c.canonicalize(&c.buf, record); err != nil {
		return "", err
	}
	sum := sha256.Sum256(c.buf.Bytes())
	return hex.EncodeToString(sum[:]), nil
}

// Canonicalize writes the canonical form of the JSON value in record to buf (see SourceHash).
//
// It streams the record through a JSON tokenizer (jsontext, the upstream of Go's
// encoding/json/v2), which is strict: a record it refuses (a repeated object key, invalid
// UTF-8, a lone surrogate escape, trailing data) is canonicalized by decoding it whole, the
// reference form, whose result for those inputs (the last of repeated keys wins, U+FFFD for bad
// bytes) the stream does not try to copy. For every record the stream accepts, its output is
// byte for byte the reference's (TestCanonicalStreamMatchesReference, FuzzCanonicalStream), so
// stored source_hash values stay valid. The stream costs about a quarter of the reference
// (BenchmarkSourceHash); its tokenizer and scratch space are pooled between records.
func Canonicalize(buf *bytes.Buffer, record []byte) error {
	c := canonicalizers.Get().(*canonicalizer)
	defer canonicalizers.Put(c)
	return c.canonicalize(buf, record)
}

// canonicalizer is the reusable state of the stream: a tokenizer, its reader, the scratch copy
// of the objects' values and their members, and SourceHash's buffer.
type canonicalizer struct {
	rd      bytes.Reader
	dec     jsontext.Decoder
	scratch []byte
	members []member
	buf     bytes.Buffer
}

var canonicalizers = sync.Pool{New: func() any { return new(canonicalizer) }}

func (c *canonicalizer) canonicalize(buf *bytes.Buffer, record []byte) error {
	start := buf.Len()
	if c.stream(buf, record) == nil {
		return nil
	}
	buf.Truncate(start)
	return canonicalReference(buf, record)
}

// canonicalReference is Canonicalize by decoding the whole record (encoding/json, numbers kept
// as written) and writing it again with sorted keys.
func canonicalReference(buf *bytes.Buffer, record []byte) error {
	dec := json.NewDecoder(bytes.NewReader(record))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("canonicalize record: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("canonicalize record: trailing data after the JSON value")
	}
	return writeCanonical(buf, v)
}

// stream is Canonicalize by streaming tokens; it fails on anything the tokenizer's strict
// defaults refuse, and then buf holds a partial form.
func (c *canonicalizer) stream(buf *bytes.Buffer, record []byte) error {
	c.rd.Reset(record)
	c.dec.Reset(&c.rd)
	c.scratch, c.members = c.scratch[:0], c.members[:0]
	defer c.rd.Reset(nil) // the pool does not keep the record from the garbage collector
	if err := c.value(buf); err != nil {
		return err
	}
	if _, err := c.dec.ReadToken(); err != io.EOF {
		return errTrailing
	}
	return nil
}

// canonicalStream is the stream with a canonicalizer of its own (the tests').
func canonicalStream(buf *bytes.Buffer, record []byte) error {
	return new(canonicalizer).stream(buf, record)
}

// errTrailing is the stream's refusal of data after the value.
var errTrailing = errors.New("canonicalize record: trailing data after the JSON value")

// member is one object member of value: its key, and where its canonical value stands in the
// object's scratch copy.
type member struct {
	key        string
	start, end int
}

// value writes the canonical form of the next value of the tokenizer to buf. An object's
// values are written in the order read, copied to the scratch space (its members kept on the
// members stack), and written again in key order; a nested object uses the space above its
// parent's and gives it back.
func (c *canonicalizer) value(buf *bytes.Buffer) error {
	dec := &c.dec
	switch dec.PeekKind() {
	case '"': // a string whose raw form is its canonical form is copied as it is
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if plain(raw) {
			buf.Write(raw)
			return nil
		}
		s, err := jsontext.AppendUnquote(nil, raw)
		if err != nil {
			return err
		}
		writeString(buf, string(s))
		return nil
	case '{':
		return c.object(buf)
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		buf.WriteByte('[')
		for i := 0; dec.PeekKind() != ']'; i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := c.value(buf); err != nil {
				return err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		buf.WriteByte(']')
		return nil
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case '0':
		buf.WriteString(tok.String()) // the number as written, as json.Number keeps it
	case 't':
		buf.WriteString("true")
	case 'f':
		buf.WriteString("false")
	case 'n':
		buf.WriteString("null")
	default:
		return fmt.Errorf("canonicalize record: unexpected token %v", tok.Kind())
	}
	return nil
}

// object writes the canonical form of the object that is the tokenizer's next value to buf.
func (c *canonicalizer) object(buf *bytes.Buffer) error {
	dec := &c.dec
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	base, first := buf.Len(), len(c.members)
	for dec.PeekKind() != '}' {
		k, err := dec.ReadToken()
		if err != nil {
			return err
		}
		key := k.String()
		start := buf.Len()
		if err := c.value(buf); err != nil {
			return err
		}
		c.members = append(c.members, member{key: key, start: start - base, end: buf.Len() - base})
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	from := len(c.scratch)
	c.scratch = append(c.scratch, buf.Bytes()[base:]...)
	values := c.scratch[from:]
	buf.Truncate(base)
	members := c.members[first:]
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	buf.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, m.key)
		buf.WriteByte(':')
		buf.Write(values[m.start:m.end])
	}
	buf.WriteByte('}')
	c.scratch, c.members = c.scratch[:from], c.members[:first]
	return nil
}

// plain reports whether the raw JSON string raw is written as it is by writeString after
// decoding: printable ASCII with no escape ('\\' starts every escape, and a '"' inside is
// always escaped).
func plain(raw []byte) bool {
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func writeCanonical(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			if err := writeCanonical(buf, x[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeCanonical(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case string:
		writeString(buf, x)
	case json.Number:
		buf.WriteString(x.String())
	case bool:
		if x {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case nil:
		buf.WriteString("null")
	default:
		return fmt.Errorf("canonicalize record: unexpected %T", v)
	}
	return nil
}

// writeString writes s as encoding/json writes it without HTML escaping. A string of printable
// ASCII without '"' or '\\' (most of a record) is written as it is, which is what the encoder
// writes for it.
func writeString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			enc := json.NewEncoder(buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s)           // encoding a string cannot fail
			buf.Truncate(buf.Len() - 1) // Encode appends a newline
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}
