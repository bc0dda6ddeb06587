package dcatus

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestURISchemes: a "uri" must have a scheme a link may have. javascript:, vbscript:, data: and
// file: URIs, which RFC 3986 (and the Data.gov harvester's rfc3987 check) accept, are invalid
// wherever DCAT-US 1.1 expects a URL, and the problem names the field: they would go to API
// consumers and the catalog's pages as links.
func TestURISchemes(t *testing.T) {
	t.Parallel()
	for in, valid := range map[string]bool{
		"https://example.gov/x": true, "HTTP://example.gov/": true, "ftp://ftp.example.gov/a": true,
		"mailto:data@example.gov": true, "urn:isbn:123": true, "doi:10.1000/182": true,
		"javascript:alert(1)": false, "JavaScript:alert(document.cookie)": false, "vbscript:msgbox(1)": false,
		"data:text/html;base64,PHNjcmlwdD4=": false, "file:///etc/passwd": false, "hhttps://example.gov/": false,
		"a:": false,
	} {
		err := validateURI(in)
		require.Equal(t, valid, err == nil, "%q: %v", in, err)
		if !valid {
			require.ErrorContains(t, err, "is not allowed where a URL is expected", in)
		}
	}

	v := newValidator(t, schemaTypeNonFederal)
	base := map[string]any{"@type": "dcat:Dataset", "title": "t", "description": "d", "keyword": []string{"k"},
		"modified": "2025-01-01", "publisher": map[string]any{"@type": "org:Organization", "name": "p"},
		"contactPoint": map[string]any{"@type": "vcard:Contact", "fn": "c", "hasEmail": "mailto:c@example.gov"},
		"identifier":   "id", "accessLevel": "public"}
	data, err := json.Marshal(base)
	require.NoError(t, err)
	problems, err := v.Validate(data)
	require.NoError(t, err)
	require.Empty(t, problems, "the base record is valid")
	for field, path := range map[string]string{"landingPage": "$.landingPage", "license": "$.license",
		"distribution": "$.distribution[0].downloadURL"} {
		rec := map[string]any{}
		for k, x := range base {
			rec[k] = x
		}
		if field == "distribution" {
			rec[field] = []any{map[string]any{"@type": "dcat:Distribution", "downloadURL": "javascript:alert(1)", "mediaType": "text/csv"}}
		} else {
			rec[field] = "javascript:alert(1)"
		}
		data, err := json.Marshal(rec)
		require.NoError(t, err)
		problems, err := v.Validate(data)
		require.NoError(t, err)
		require.NotEmpty(t, problems, field)
		require.Equal(t, path, problems[0].Path, "the problem names the field: %v", problems)
	}
}
