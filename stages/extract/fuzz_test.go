package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/harvester-dev/harvester/corpustest"
)

// FuzzWalkCatalog feeds arbitrary documents to the catalog walker: it must never panic, must
// either list entries or return a *ParseError (or nothing), and every entry must be a JSON value
// taken from the document as written.
func FuzzWalkCatalog(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(corpustest.Dir(f), "dcatus", "*.json"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte("\xEF\xBB\xBF{\"dataset\":[{\"identifier\":\"a\"},{}]}"))
	f.Add([]byte(`[{"identifier":"a"}]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		err := WalkCatalog(bytes.NewReader(doc), func(pos int, raw json.RawMessage) error {
			if !json.Valid(raw) {
				t.Fatalf("entry %d is not JSON: %q", pos, raw)
			}
			if !bytes.Contains(doc, raw) {
				t.Fatalf("entry %d is not the document's own bytes: %q", pos, raw)
			}
			e := Identify(pos, raw)
			if e.Err == nil && e.Identifier == "" {
				t.Fatalf("entry %d has neither an identifier nor an error", pos)
			}
			return nil
		})
		var perr *ParseError
		if err != nil && !errors.As(err, &perr) {
			t.Fatalf("error is not a *ParseError: %T %v", err, err)
		}
	})
}
