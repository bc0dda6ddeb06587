package change

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzCanonicalize checks the canonical form on arbitrary JSON: it is itself valid JSON, it is a
// fixed point (canonicalising it again changes nothing), and re-indenting the input does not
// change the hash.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `{"t":"caf\u00e9 <b>","n":1.50e3}`, `[]`, `"s"`,
		`{"a":{"c":{},"b":[{"z":1,"y":2}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var once bytes.Buffer
		if err := Canonicalize(&once, in); err != nil {
			return // not JSON: an error, never a panic
		}
		if !json.Valid(once.Bytes()) {
			t.Fatalf("canonical form is not JSON: %q", once.Bytes())
		}
		var twice bytes.Buffer
		if err := Canonicalize(&twice, once.Bytes()); err != nil || !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("not a fixed point: %q then %q (%v)", once.Bytes(), twice.Bytes(), err)
		}
		var indented bytes.Buffer
		if json.Indent(&indented, in, "", "  ") == nil {
			a, _ := SourceHash(in)
			b, err := SourceHash(indented.Bytes())
			if err != nil || a != b {
				t.Fatalf("whitespace changed the hash of %q", in)
			}
		}
	})
}
