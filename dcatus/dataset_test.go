package dcatus

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDatasetEncode: the keys in the field order, identifier and accessLevel always, empty
// fields left out, markup not escaped, two-space indent, no final newline.
func TestDatasetEncode(t *testing.T) {
	t.Parallel()
	d := NewDataset("urn:x")
	d.Title = "<b>A & B</b>"
	d.Publisher = NewOrganization("Org")
	d.ContactPoint = NewContactPoint("Ann", "")
	d.Distribution = []Distribution{{Type: TypeDistribution, AccessURL: "https://x.example/"}}
	out, err := d.Encode()
	require.NoError(t, err)
	require.Equal(t, `{
  "@type": "dcat:Dataset",
  "title": "<b>A & B</b>",
  "publisher": {
    "@type": "org:Organization",
    "name": "Org"
  },
  "contactPoint": {
    "@type": "vcard:Contact",
    "fn": "Ann"
  },
  "identifier": "urn:x",
  "accessLevel": "public",
  "distribution": [
    {
      "@type": "dcat:Distribution",
      "accessURL": "https://x.example/"
    }
  ]
}`, string(out))
}

// TestWithIsPartOf: set when the dataset has none, kept when it has one, anything that is not
// a JSON object returned as it is; WithPublisher likewise.
func TestWithIsPartOf(t *testing.T) {
	t.Parallel()
	require.Equal(t, `{"identifier":"a","isPartOf":"p"}`, string(WithIsPartOf(json.RawMessage(`{"identifier": "a"}`), "p")))
	own := json.RawMessage(`{"isPartOf": "q"}`)
	require.Equal(t, string(own), string(WithIsPartOf(own, "p")))
	for _, v := range []string{`[1]`, `null`, `"x"`, `{`} {
		require.Equal(t, v, string(WithIsPartOf(json.RawMessage(v), "p")))
	}
	require.Equal(t, `{"identifier":"a","publisher":{"@type":"org:Organization","name":"Org"}}`,
		string(WithPublisher(json.RawMessage(`{"identifier": "a"}`), "Org")))
	named := json.RawMessage(`{"publisher": {"name": "Own"}}`)
	require.Equal(t, string(named), string(WithPublisher(named, "Org")))
}
