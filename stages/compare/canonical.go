package compare

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
	var buf bytes.Buffer
	if err := Canonicalize(&buf, record); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
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
// (BenchmarkSourceHash).
func Canonicalize(buf *bytes.Buffer, record []byte) error {
	start := buf.Len()
	if canonicalStream(buf, record) == nil {
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

// errTrailing is canonicalStream's refusal of data after the value.
var errTrailing = errors.New("canonicalize record: trailing data after the JSON value")

// canonicalStream is Canonicalize by streaming tokens; it fails on anything the tokenizer's
// strict defaults refuse, and then buf holds a partial form.
func canonicalStream(buf *bytes.Buffer, record []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(record))
	if err := streamValue(buf, dec); err != nil {
		return err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return errTrailing
	}
	return nil
}

// member is one object member of streamValue: its key, and where its canonical value stands in
// the object's scratch copy.
type member struct {
	key        string
	start, end int
}

// streamValue writes the canonical form of the next value of dec to buf.
func streamValue(buf *bytes.Buffer, dec *jsontext.Decoder) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case '{':
		// The values are written in the order read, then the object again in key order.
		base := buf.Len()
		var members []member
		for dec.PeekKind() != '}' {
			k, err := dec.ReadToken()
			if err != nil {
				return err
			}
			key := k.String()
			start := buf.Len()
			if err := streamValue(buf, dec); err != nil {
				return err
			}
			members = append(members, member{key: key, start: start - base, end: buf.Len() - base})
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		values := bytes.Clone(buf.Bytes()[base:])
		buf.Truncate(base)
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
	case '[':
		buf.WriteByte('[')
		for i := 0; dec.PeekKind() != ']'; i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := streamValue(buf, dec); err != nil {
				return err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		buf.WriteByte(']')
	case '"':
		writeString(buf, tok.String())
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
