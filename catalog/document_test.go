package catalog

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// entries walks doc and returns its identified entries.
func entries(t *testing.T, doc string) ([]Entry, error) {
	t.Helper()
	var out []Entry
	err := WalkCatalog(strings.NewReader(doc), func(pos int, raw json.RawMessage) error {
		out = append(out, Identify(pos, raw))
		return nil
	})
	return out, err
}

func TestWalkCatalogIdentifiers(t *testing.T) {
	t.Parallel()
	es, err := entries(t, "\xEF\xBB\xBF"+`{"@type":"dcat:Catalog","dataset":[
		{"identifier":"a","title":"A"},
		{"identifier":{"@id":"https://x.example/b","notation":"b"}},
		{"identifier":"  "},
		{"title":"No id"},
		{},
		"not an object",
		{"identifier":42},
		{"identifier":" c "}
	],"other":{"dataset":"ignored"}}`)
	require.NoError(t, err, "a leading BOM is skipped")
	require.Len(t, es, 8)
	require.Equal(t, "a", es[0].Identifier)
	require.Equal(t, `{"identifier":"a","title":"A"}`, string(es[0].Raw), "raw bytes as written")
	require.Equal(t, "https://x.example/b", es[1].Identifier)
	require.ErrorContains(t, es[2].Err, "no identifier")
	require.ErrorContains(t, es[3].Err, `(title "No id") has no identifier`)
	require.ErrorContains(t, es[4].Err, "no identifier")
	require.ErrorContains(t, es[5].Err, "is a JSON string, not an object")
	require.ErrorContains(t, es[6].Err, "must be a string or an object with @id")
	require.Equal(t, " c ", es[7].Identifier, "identifiers are kept verbatim")
	for _, i := range []int{0, 1, 7} {
		require.NoError(t, es[i].Err)
	}
}

func TestWalkCatalogRefusesWhatIsNotACatalog(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, want string }{
		{`[{"identifier":"a"}]`, "Project Open Data 1.0"},
		{`{"good":"json"}`, `no "dataset" array`},
		{`{"dataset":{"identifier":"a"}}`, `"dataset" is a JSON object, not an array`},
		{`"just a string"`, "JSON string, not a DCAT-US catalog"},
		{`{"dataset":[{"identifier":"a"}]} {"again":1}`, "unexpected data after the catalog object"},
		{`{"dataset":[{"identifier":"a"}`, "unexpected end of the document"},
		{"<!DOCTYPE html><html>", "invalid character '<'"},
		{"", "unexpected end of the document"},
		{`{"dataset":[{"identifier":"a"}],"dataset":[{"identifier":"b"}]}`, `the catalog has more than one "dataset" member`},
		{`{"dataset":[],"dataset":{}}`, `the catalog has more than one "dataset" member`},
	} {
		_, err := entries(t, tc.doc)
		var perr *ParseError
		require.True(t, errors.As(err, &perr), "%q: %v", tc.doc, err)
		require.ErrorContains(t, err, tc.want, tc.doc)
	}
}

func TestWalkCatalogSyntaxErrorPosition(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file   string
		line   int
		column int
	}{
		{"dcatus/INVALID-not-json.data.json", 3, 5},
		{"dcatus/INVALID-cfpb-malformed-geojson-spatial.data.json", 82, 7},
	} {
		f, err := os.Open(corpustest.Path(t, tc.file))
		require.NoError(t, err)
		err = WalkCatalog(f, func(int, json.RawMessage) error { return nil })
		f.Close()
		var perr *ParseError
		require.True(t, errors.As(err, &perr), "%s: %v", tc.file, err)
		require.Equal(t, [2]int{tc.line, tc.column}, [2]int{perr.Line, perr.Column}, tc.file)
	}
}

func TestWalkCatalogCorpus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file             string
		entries, unkeyed int
	}{
		{"dcatus/agency-dhs-2025-07.data.json", 1250, 0},
		{"dcatus/agency-usaid-2015.data.json", 0, 0}, // BOM + top-level array: refused
		{"dcatus/INVALID-datagov-mixed-identifiers.data.json", 7, 2},
		{"dcatus/INVALID-datajson-missing-catalog-fields.data.json", 2, 1},
		{"dcatus/dcatus3-catalog.json", 4, 1}, // an Identifier object without @id
	} {
		f, err := os.Open(corpustest.Path(t, tc.file))
		require.NoError(t, err)
		n, unkeyed := 0, 0
		err = WalkCatalog(f, func(pos int, raw json.RawMessage) error {
			n++
			if Identify(pos, raw).Err != nil {
				unkeyed++
			}
			return nil
		})
		f.Close()
		if tc.entries == 0 {
			require.ErrorIs(t, err, ErrLegacyArray, tc.file)
			continue
		}
		require.NoError(t, err, tc.file)
		require.Equal(t, tc.entries, n, tc.file)
		require.Equal(t, tc.unkeyed, unkeyed, tc.file)
	}
}

func BenchmarkWalkCatalog(b *testing.B) {
	path := corpustest.Path(b, "dcatus/agency-va-2025-07.data.json")
	fi, err := os.Stat(path)
	require.NoError(b, err)
	b.SetBytes(fi.Size())
	for b.Loop() {
		f, err := os.Open(path)
		require.NoError(b, err)
		err = WalkCatalog(f, func(pos int, raw json.RawMessage) error { _ = Identify(pos, raw); return nil })
		f.Close()
		require.NoError(b, err)
	}
}
