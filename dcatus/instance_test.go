package dcatus

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/harvester-dev/harvester/internal/cputime"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

// reference decodes in as Validate did before the stream: jsonschema.UnmarshalJSON.
func reference(in []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(in))
}

// Every DCAT-US record of the corpus decodes by the stream to the reference's value, so its
// problems and their messages are the same.
func TestInstanceStreamMatchesReference(t *testing.T) {
	records := 0
	for _, r := range loadCorpus(t) {
		want, err := reference(r.data)
		if err != nil {
			continue
		}
		got, err := streamInstance(r.data)
		require.NoError(t, err, "%s: the stream refused record %d", r.file, r.index)
		require.Equal(t, want, got, "%s record %d", r.file, r.index)
		records++
	}
	require.Greater(t, records, 5_000, "records compared")
}

// Inputs the stream refuses fall back to the reference, which keeps its own value for them
// and its own error; a repeated name the stream takes as the reference does (the last wins).
func TestDecodeInstanceFallsBackToReference(t *testing.T) {
	for in, want := range map[string]any{
		"\"bad \xff byte\"": "bad \ufffd byte", // invalid UTF-8: U+FFFD
		`"\ud800"`:          "\ufffd",          // lone surrogate
	} {
		_, err := streamInstance([]byte(in))
		require.Error(t, err, "the stream refuses %q", in)
		got, err := decodeInstance([]byte(in))
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for in, want := range map[string]any{
		`{"a":1,"a":2}`:                    map[string]any{"a": json.Number("2")},
		`{"a":{"x":1},"b":0,"a":{"y":[]}}`: map[string]any{"a": map[string]any{"y": []any{}}, "b": json.Number("0")},
		`{"t\u0069tle":"x","title":"y"}`:   map[string]any{"title": "y"},
	} {
		ref, err := reference([]byte(in))
		require.NoError(t, err)
		require.Equal(t, want, ref, in)
		got, err := streamInstance([]byte(in))
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{`{"a":1} x`, `{"a":`, ``, `{"a":1}{}`} {
		_, want := reference([]byte(in))
		require.Error(t, want, in)
		_, err := decodeInstance([]byte(in))
		require.Equal(t, want, err, in)
	}
	v, err := decodeInstance([]byte(` {"e":[],"o":{},"n":-1.50e3,"t":true,"f":false,"z":null} `))
	require.NoError(t, err)
	require.Equal(t, map[string]any{"e": []any{}, "o": map[string]any{}, "n": json.Number("-1.50e3"),
		"t": true, "f": false, "z": nil}, v)
}

// FuzzInstanceStream: whatever the stream accepts, it decodes as the reference does.
func FuzzInstanceStream(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `{"t":"caf\u00e9 <b>\u2028\n","n":1.50e3}`, `[]`, `"s"`,
		`{"a":{"c":{},"b":[{"z":1,"y":2}]}}`, `{"é":1,"e":2,"\u0000":3}`, ` [ 1 , 2 ] `, `{"a":1,"a":2}`, `{"t\u0069tle":1,"title":{"title":[]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := streamInstance(in)
		if err != nil {
			return
		}
		want, err := reference(in)
		if err != nil {
			t.Fatalf("the stream took %q, the reference refused it: %v", in, err)
		}
		require.Equal(t, want, got, "%q", in)
	})
}

// BenchmarkDecodeInstance decodes the records of one agency catalog (GSA) as Validate does
// (stream) and as it did before (reference); one op is one record.
func BenchmarkDecodeInstance(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "agency-gsa-2025-07.data.json"))
	require.NoError(b, err)
	records, ok := loadCatalogRecords(data)
	require.True(b, ok)
	for _, c := range []struct {
		name   string
		decode func([]byte) (any, error)
	}{{"reference", reference}, {"stream", decodeInstance}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cputime.Self()
			i := 0
			for b.Loop() {
				if _, err := c.decode(records[i%len(records)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(cputime.Self()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
