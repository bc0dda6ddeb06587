package change

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/corpustest"
)

// streamed returns the stream's canonical form of in and whether the stream took it.
func streamed(in []byte) ([]byte, bool) {
	var buf bytes.Buffer
	if canonicalStream(&buf, in) != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// Every DCAT-US record of the corpus has the same canonical form by the stream as by the
// reference, so stored source_hash values stay valid.
func TestCanonicalStreamMatchesReference(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "dcatus", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the corpus is beside the repository (../shared/corpus)")
	records := 0
	for _, path := range files {
		f, err := os.Open(path)
		require.NoError(t, err)
		_ = catalog.WalkEntries(f, catalog.DefaultMaxRecordBytes, func(e catalog.Entry) error {
			if e.Err != nil || len(e.Raw) == 0 {
				return nil
			}
			var ref bytes.Buffer
			if canonicalReference(&ref, e.Raw) != nil {
				return nil
			}
			got, ok := streamed(e.Raw)
			require.True(t, ok, "%s: the stream refused record %d", filepath.Base(path), e.Position)
			require.Equal(t, ref.String(), string(got), "%s record %d", filepath.Base(path), e.Position)
			records++
			return nil
		})
		require.NoError(t, f.Close())
	}
	require.Greater(t, records, 5_000, "records compared")
}

// Inputs the stream refuses fall back to the reference, which keeps its own answer for them.
func TestCanonicalizeFallsBackToReference(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"a":2}`:     `{"a":2}`,             // repeated key: the last wins
		"\"bad \xff byte\"": "\"bad \ufffd byte\"", // invalid UTF-8: U+FFFD
		`"\ud800"`:          "\"\ufffd\"",          // lone surrogate
		`{"b":"<&>","a":[1.50e3,-0,true,null,"\u2028"]}`: `{"a":[1.50e3,-0,true,null,"\u2028"],"b":"<&>"}`,
	} {
		var buf bytes.Buffer
		require.NoError(t, Canonicalize(&buf, []byte(in)), in)
		require.Equal(t, want, buf.String(), in)
	}
	for _, in := range []string{`{"a":1} x`, `{"a":`, ``} {
		require.Error(t, Canonicalize(&bytes.Buffer{}, []byte(in)), in)
	}
}

// FuzzCanonicalStream: whatever the stream accepts, it canonicalizes as the reference does.
func FuzzCanonicalStream(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `{"t":"caf\u00e9 <b>\u2028\n","n":1.50e3}`, `[]`, `"s"`,
		`{"a":{"c":{},"b":[{"z":1,"y":2}]}}`, `{"é":1,"e":2,"\u0000":3}`, ` [ 1 , 2 ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, ok := streamed(in)
		if !ok {
			return
		}
		var ref bytes.Buffer
		if err := canonicalReference(&ref, in); err != nil {
			t.Fatalf("the stream took %q, the reference refused it: %v", in, err)
		}
		if !bytes.Equal(ref.Bytes(), got) {
			t.Fatalf("%q: stream %q, reference %q", in, got, ref.Bytes())
		}
	})
}
