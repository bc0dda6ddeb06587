package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	f.Add([]byte(`{"dataset":[{"identifier":"a","x":` + nested(MaxRecordDepth+5) + `},{"identifier":"b","t":1,"t":2}]}`))
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
		requireSameWalks(t, doc)
	})
}

// requireSameWalks fails t unless WalkEntries and Check agree with WalkCatalog and
// Identify on doc: the same entries (raw bytes, identifier, title, error) and the same error.
func requireSameWalks(t *testing.T, doc []byte) {
	t.Helper()
	var want, got []Entry
	wantErr := WalkCatalog(bytes.NewReader(doc), func(pos int, raw json.RawMessage) error {
		want = append(want, Identify(pos, raw))
		return nil
	})
	gotErr := WalkEntries(bytes.NewReader(doc), DefaultMaxRecordBytes, func(e Entry) error {
		got = append(got, e)
		return nil
	})
	checkErr := Check(bytes.NewReader(doc))
	if errors.Is(checkErr, ErrDCATUS3) { // a job refuses DCAT-US 3.0; the walkers read it
		checkErr = wantErr
	}
	for i, e := range got {
		if e.Structure != nil && e.Structure.Type == "NestedTooDeep" { // the listing goes on; WalkCatalog stops
			if !strings.Contains(fmt.Sprint(wantErr), fmt.Sprintf("dataset #%d nests deeper", i+1)) || len(want) != i {
				t.Fatalf("WalkCatalog: %d entries, %v; WalkEntries: dataset #%d %v", len(want), wantErr, i+1, e.Structure)
			}
			want, got, wantErr = want[:i], got[:i], gotErr
			break
		}
	}
	if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) || fmt.Sprint(wantErr) != fmt.Sprint(checkErr) {
		t.Fatalf("errors differ: WalkCatalog %v, WalkEntries %v, Check %v", wantErr, gotErr, checkErr)
	}
	if len(want) != len(got) {
		t.Fatalf("WalkCatalog listed %d entries, WalkEntries %d", len(want), len(got))
	}
	for i := range want {
		w, g := want[i], got[i]
		if !bytes.Equal(w.Raw, g.Raw) || w.Position != g.Position || w.Identifier != g.Identifier ||
			w.Title != g.Title || fmt.Sprint(w.Err) != fmt.Sprint(g.Err) {
			t.Fatalf("entry %d differs:\nWalkCatalog %+v\nwalkEntries %+v", i, w, g)
		}
	}
}
