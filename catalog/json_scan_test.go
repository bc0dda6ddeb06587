package catalog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scanWhole checks doc as one JSON value with the streaming scanner, as json.Valid does.
func scanWhole(doc []byte) error {
	s := newJSONScanner(bufio.NewReader(bytes.NewReader(doc)))
	if err := s.value(); err != nil {
		return err
	}
	if _, err := s.skipSpace(); err != io.EOF {
		c, _ := s.take()
		return s.syntaxError(c, "after top-level value")
	}
	return nil
}

// jsonPosition is where encoding/json places the syntax error of doc: the line and column of
// the byte at fault, and its message; ok is false when doc is valid or ends too soon.
func jsonPosition(doc []byte) (line, col int, msg string, ok bool) {
	var syn *json.SyntaxError
	if !errors.As(json.Unmarshal(doc, new(json.RawMessage)), &syn) || syn.Offset > int64(len(doc)) ||
		syn.Error() == "unexpected end of JSON input" {
		return 0, 0, "", false
	}
	if int(syn.Offset) == len(doc) && strings.Contains(syn.Error(), "' '") && doc[len(doc)-1] != ' ' {
		return 0, 0, "", false // json.Valid feeds a space at the end: the document ended too soon
	}
	prefix := doc[:min(int(syn.Offset), len(doc))]
	line = 1 + bytes.Count(prefix, []byte{'\n'})
	return line, max(1, len(prefix)-(bytes.LastIndexByte(prefix, '\n')+1)), syn.Error(), true
}

// requireSameAsEncodingJSON fails t unless the scanner judges doc as encoding/json does: valid
// or not, and for a syntax error the same message at the same line and column.
func requireSameAsEncodingJSON(t *testing.T, doc []byte) {
	t.Helper()
	name := doc[:min(len(doc), 80)]
	err := scanWhole(doc)
	if json.Valid(doc) {
		require.NoError(t, err, "%q", name)
		return
	}
	require.Error(t, err, "%q", name)
	var perr *ParseError
	require.True(t, errors.As(err, &perr), "%q: %T", name, err)
	line, col, msg, ok := jsonPosition(doc)
	if !ok {
		require.ErrorIs(t, err, errEnd, "%q", name)
		return
	}
	// A newline at fault is the one byte encoding/json places on the line after it.
	if !strings.Contains(msg, `'\n'`) {
		require.Equal(t, [2]int{line, col}, [2]int{perr.Line, perr.Column}, "%q: %v", name, msg)
	}
	require.Equal(t, msg, perr.Err.Error(), "%q", name)
}

func TestJSONScannerAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{}`, `[]`, `{"a":[1,-2.5e+3,0,true,false,null,"x\u00e9\n\"y"]}`, " \n\t{\"a\" : { } }\r\n",
		`{"a":1,}`, `{"a" 1}`, `{"a":1 "b":2}`, `[1,]`, `[1 2]`, `01`, `-`, `-x`, `1.`, `1.x`, `1e`, `1e+`,
		`1ex`, `tru`, `trux`, `nul1`, `fals`, `"\x"`, `"\u12g4"`, "\"a\nb\"", "{\n  \"a\": [\n    1,\n    x\n  ]\n}",
		`{"a":1}}`, `{"a":1} x`, `{1:2}`, `<html>`, `{"a":"b"` + "\x01" + `}`, `[` + strings.Repeat("[", 10001),
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000), `"\ud800"`, "\"\xff\"", `{"a":-0.0e-0}`,
		`[.5]`, `[+1]`, `[1.5e3.2]`, `{"a":nulL}`, "[\"\t\"]", `'a'`, `[1,,2]`, `{,}`, `{"a":}`,
	} {
		requireSameAsEncodingJSON(t, []byte(doc))
	}
}

func FuzzJSONScanner(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\u00e9"]}`, `[1,]`, `{"a" 1}`, "\"a\nb\"", `-01.x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { requireSameAsEncodingJSON(t, doc) })
}

// TestSyntaxErrorPositionStreams: the line and column of a syntax error come from the one
// streaming pass; the document is not read again into memory (a 64 MiB catalog with an error
// at column 13 used to be read whole a second time).
func TestSyntaxErrorPositionStreams(t *testing.T) {
	path := t.TempDir() + "/bad.data.json"
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = f.WriteString("{\n  \"dataset\": [{\"identifier\":\"a\"}]\n  x\n" + `, "pad": "`)
	require.NoError(t, err)
	pad := bytes.Repeat([]byte("p"), 1<<20)
	for range 64 {
		_, err = f.Write(pad)
		require.NoError(t, err)
	}
	_, err = f.WriteString(`"}`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	f, err = os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = Check(f)
	runtime.ReadMemStats(&after)
	var perr *ParseError
	require.True(t, errors.As(err, &perr), "%v", err)
	require.Equal(t, [2]int{3, 3}, [2]int{perr.Line, perr.Column})
	require.Contains(t, err.Error(), "invalid character 'x' after object key:value pair")
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20), "bytes allocated to place the error")
}

// TestWalkBoundsRecordMemory: a dataset larger than the cap is measured as it streams past,
// never held: the walk allocates a small share of it, and its identifier and title are still
// read.
func TestWalkBoundsRecordMemory(t *testing.T) {
	big := strings.Repeat("x", 20<<20)
	doc := `{"dataset":[{"identifier":"a"},{"title":"Huge","description":"` + big + `","identifier":"big"},` +
		`{"identifier":"c"}]}`
	var got []Entry
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := WalkEntries(strings.NewReader(doc), 1<<20, func(e Entry) error { got = append(got, e); return nil })
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.False(t, got[0].TooLarge)
	require.Equal(t, `{"identifier":"a"}`, string(got[0].Raw))
	e := got[1]
	require.True(t, e.TooLarge)
	require.Nil(t, e.Raw)
	require.Equal(t, int64(len(doc)-len(`{"dataset":[{"identifier":"a"},`)-len(`,{"identifier":"c"}]}`)), e.Size)
	require.Equal(t, "big", e.Identifier)
	require.Equal(t, "Huge", e.Title)
	require.NoError(t, e.Err)
	require.Equal(t, "c", got[2].Identifier)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20),
		fmt.Sprintf("bytes allocated to walk a %d-byte record with a 1 MiB cap", len(big)))
}
