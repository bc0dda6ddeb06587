package iso

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatus"
)

// Links as records write them become URIs DCAT-US validates: spaces, non-ASCII characters (as
// their UTF-8 bytes), characters RFC 3986 forbids and a stray "%" are percent-encoded, a
// non-ASCII host becomes its IDNA form, and escapes already there are kept.
func TestCleanURLEscapes(t *testing.T) {
	t.Parallel()
	v, err := dcatus.NewValidator("dcatus1.1: non-federal")
	require.NoError(t, err)
	for in, want := range map[string]string{
		"https://example.gov/docs/Qualité report.pdf":  "https://example.gov/docs/Qualit%C3%A9%20report.pdf",
		"https://example.gov/data/my data file.zip":    "https://example.gov/data/my%20data%20file.zip",
		"https://example.gov/a%20b/c?q=x|y&r={z}":      "https://example.gov/a%20b/c?q=x%7Cy&r=%7Bz%7D",
		"https://example.gov/100%/done":                "https://example.gov/100%25/done",
		"https://bücher.example/Straße":                "https://xn--bcher-kva.example/Stra%C3%9Fe",
		"example.gov/“quoted”":                         "https://example.gov/%E2%80%9Cquoted%E2%80%9D",
		"ftp://ftp.example.gov/pub/données/fichier.gz": "ftp://ftp.example.gov/pub/donn%C3%A9es/fichier.gz",
	} {
		got, ok := cleanURL(in)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
		problems, err := v.Validate([]byte(`{"@type":"dcat:Dataset","title":"T","description":"D","keyword":["k"],` +
			`"modified":"2020","publisher":{"@type":"org:Organization","name":"P"},"contactPoint":{"@type":"vcard:Contact",` +
			`"fn":"C","hasEmail":"mailto:c@example.gov"},"identifier":"i","accessLevel":"public","landingPage":"` + got + `"}`))
		require.NoError(t, err)
		require.Empty(t, problems, got)
	}
}
