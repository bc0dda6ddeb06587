package change

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCanonicalize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"sorts keys recursively", `{"b":1,"a":{"d":[3,1],"c":null}}`, `{"a":{"c":null,"d":[3,1]},"b":1}`},
		{"drops whitespace", "{ \"a\" :\t[ 1 , 2 ]\r\n}", `{"a":[1,2]}`},
		{"keeps numbers as written", `{"n":1.50,"m":1e3}`, `{"m":1e3,"n":1.50}`},
		{"decodes escapes", `{"t":"caf\u00e9 \u003cb\u003e"}`, `{"t":"café <b>"}`},
		{"keeps array order", `["b","a"]`, `["b","a"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, Canonicalize(&buf, []byte(tc.in)))
			require.Equal(t, tc.want, buf.String())
		})
	}
}

func TestSourceHashIgnoresSerialisation(t *testing.T) {
	t.Parallel()
	a, err := SourceHash([]byte(`{"identifier":"x","keyword":["a","b"],"title":"T\u00e9"}`))
	require.NoError(t, err)
	b, err := SourceHash([]byte("{\n  \"title\": \"Té\",\n  \"keyword\": [\"a\", \"b\"],\n  \"identifier\": \"x\"\n}"))
	require.NoError(t, err)
	require.Equal(t, a, b)
	c, err := SourceHash([]byte(`{"identifier":"x","keyword":["b","a"],"title":"Té"}`))
	require.NoError(t, err)
	require.NotEqual(t, a, c, "array order is content")
	_, err = SourceHash([]byte(`{"a":`))
	require.Error(t, err)
}

func BenchmarkSourceHash(b *testing.B) {
	rec := []byte(`{"@type":"dcat:Dataset","title":"Federal Register","description":"All documents published in the Federal Register since 1994.","keyword":["register","rules","notices"],"modified":"2025-01-01","publisher":{"@type":"org:Organization","name":"General Services Administration"},"contactPoint":{"@type":"vcard:Contact","fn":"Jane Doe","hasEmail":"mailto:jane@gsa.gov"},"identifier":"GSA-2015-1","accessLevel":"public","bureauCode":["023:00"],"programCode":["023:000"],"distribution":[{"@type":"dcat:Distribution","downloadURL":"https://example.gov/a.csv","mediaType":"text/csv"}]}`)
	b.SetBytes(int64(len(rec)))
	for b.Loop() {
		if _, err := SourceHash(rec); err != nil {
			b.Fatal(err)
		}
	}
}
