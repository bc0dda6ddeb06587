package compare

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
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
func Canonicalize(buf *bytes.Buffer, record []byte) error {
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

func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // encoding a string cannot fail
	buf.Truncate(buf.Len() - 1) // Encode appends a newline
}
