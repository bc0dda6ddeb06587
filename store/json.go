package store

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// StorableJSON returns the JSON text raw with each \u escape that names no character a
// database can hold replaced by \ufffd (U+FFFD, the replacement character): a surrogate half
// without its pair (\ud800 alone, or \udc00 first) and \u0000. It is the one rule both
// backends apply to the JSON they store (a dataset's dcat, a record's source_transform), so
// that they behave the same: encoding/json already decodes an unpaired surrogate as U+FFFD and
// SQLite would keep either escape, while Postgres jsonb refuses both ("invalid input syntax
// for type json", "unsupported Unicode escape sequence"), which would fail the record's sync
// on every run. A surrogate pair (\ud83d\ude00) and every other escape are kept as written;
// raw itself is returned when it has nothing to replace, else a copy of the same length (the
// replacement is as long as the escape it replaces). raw is expected to be valid JSON, where
// \u escapes occur only inside strings.
func StorableJSON(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(`\u`)) {
		return raw
	}
	var out []byte // a copy of raw, made at the first replacement
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := escapeAt(raw, i)
		if !ok {
			i++ // \" \\ \n …: the escaped byte cannot start an escape
			continue
		}
		bad := r == 0 || isLowSurrogate(r)
		if isHighSurrogate(r) {
			if low, ok := escapeAt(raw, i+6); ok && isLowSurrogate(low) {
				i += 11 // a pair is one character: kept
				continue
			}
			bad = true
		}
		if bad {
			if out == nil {
				out = bytes.Clone(raw)
			}
			copy(out[i:], `\ufffd`)
		}
		i += 5
	}
	if out == nil {
		return raw
	}
	return out
}

// escapeAt reads the \uXXXX escape at raw[i:], if there is one there.
func escapeAt(raw []byte, i int) (rune, bool) {
	if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
	return rune(n), err == nil
}

func isHighSurrogate(r rune) bool { return 0xd800 <= r && r < 0xdc00 }
func isLowSurrogate(r rune) bool  { return 0xdc00 <= r && r < 0xe000 }
