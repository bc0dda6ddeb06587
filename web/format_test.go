package web

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

func TestDiffJSON(t *testing.T) {
	changes, err := diffJSON([]byte(`{"title":"a","keyword":["x","y"],"publisher":{"name":"P"},"gone":1}`),
		[]byte(`{"title":"b","keyword":["x"],"publisher":{"name":"Q"},"new":true}`))
	require.NoError(t, err)
	require.Equal(t, []fieldChange{
		{Path: "gone", Kind: "removed", Old: "1"},
		{Path: "keyword[1]", Kind: "removed", Old: `"y"`},
		{Path: "new", Kind: "added", New: "true"},
		{Path: "publisher.name", Kind: "changed", Old: `"P"`, New: `"Q"`},
		{Path: "title", Kind: "changed", Old: `"a"`, New: `"b"`},
	}, changes)
	changes, err = diffJSON([]byte(`{"a":1.0}`), []byte(`{"a":1.0}`))
	require.NoError(t, err)
	require.Empty(t, changes)
	_, err = diffJSON([]byte(`<xml/>`), []byte(`{}`))
	require.Error(t, err)
}

func TestPrettyRaw(t *testing.T) {
	out, kind := prettyRaw(`{"b":1,"a":[1,2]}`, harvest.SchemaDCATUS11Federal)
	require.Equal(t, "JSON", kind)
	require.Equal(t, "{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2\n  ]\n}", out)

	const iso = `<gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd"><gmd:b>text</gmd:b><c/></gmd:MD_Metadata>`
	out, kind = prettyRaw(iso, harvest.SchemaISO19115_1)
	require.Equal(t, "XML", kind)
	require.Equal(t, iso, out, "XML as stored: no namespace rewritten")

	ttl := `<http://example.org/d> <http://purl.org/dc/terms/title> "T" .
<http://example.org/d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/dcat#Dataset> .`
	out, kind = prettyRaw(ttl, harvest.SchemaDCATAP)
	require.Equal(t, "Turtle", kind)
	require.Contains(t, out, "@prefix dct: <http://purl.org/dc/terms/>")
	require.Contains(t, out, "dct:title")
	require.True(t, strings.Contains(out, "dcat:Dataset"), out)

	nq := `<http://example.org/d> <http://purl.org/dc/terms/title> "T" <http://example.org/g> .` + "\n"
	out, kind = prettyRaw(nq, harvest.SchemaDCATAP)
	require.Equal(t, "Turtle", kind, "N-Quads, as EXTRACT stores a DCAT-AP record")
	require.Contains(t, out, `dct:title "T"`)

	out, kind = prettyRaw(`@prefix dct: <http://purl.org/dc/terms/> . <http://example.org/d> dct:title "T" .`, harvest.SchemaDCATAP)
	require.Equal(t, "Turtle", kind)
	require.Contains(t, out, `dct:title "T"`)

	out, kind = prettyRaw("not json {", harvest.SchemaDCATUS11Federal)
	require.Equal(t, "text", kind)
	require.Equal(t, "not json {", out)
}
