package bleve

import (
	"os"
	"path/filepath"
	"testing"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
)

// TestGenerationBeforeFolding: a generation created before the folded fields (the mapping of
// c40dbf5: keyword fields and "en" text only) still filters on the published values, as it
// did, instead of finding nothing; after a Rebuild (harvester reindex) the filters ignore case
// and accents.
func TestGenerationBeforeFolding(t *testing.T) {
	dir := t.TempDir()
	doc := mapping.NewDocumentStaticMapping()
	for _, name := range []string{"id", "source_id", "keyword", "organization"} {
		doc.AddFieldMappingsAt(name, mapping.NewKeywordFieldMapping())
	}
	title := mapping.NewTextFieldMapping()
	title.Analyzer = "en"
	doc.AddFieldMappingsAt("title", title)
	im := mapping.NewIndexMapping()
	im.DefaultMapping, im.DefaultAnalyzer = doc, "en"
	old, err := blevesearch.New(filepath.Join(dir, "datasets-1.bleve"), im)
	require.NoError(t, err)
	require.NoError(t, old.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "current"), []byte("datasets-1.bleve\n"), 0o644))

	x, err := Open(dir)
	require.NoError(t, err)
	defer x.Close()
	d := search.Document{ID: "d1", Title: "Threat feeds", Identifier: "i", SourceID: "s", Keyword: []string{"Cybersecurity"},
		Organization: "Department of Homeland Security"}
	_, err = x.Apply(t.Context(), []search.Op{{ID: d.ID, Doc: &d}})
	require.NoError(t, err)
	total := func(q search.Query) int {
		t.Helper()
		res, err := x.Search(t.Context(), q)
		require.NoError(t, err)
		return res.Total
	}
	require.Equal(t, 1, total(search.Query{Keyword: "Cybersecurity"}), "the published value still filters")
	require.Equal(t, 1, total(search.Query{Organization: "Department of Homeland Security"}))
	require.Equal(t, 1, total(search.Query{Text: "threats"}))
	require.Equal(t, 0, total(search.Query{Keyword: "cybersecurity"}), "folding needs a reindex")

	require.NoError(t, x.Rebuild(t.Context(), func(put func(search.Document) error) error { return put(d) }))
	require.Equal(t, 1, total(search.Query{Keyword: "cybersecurity"}))
	require.Equal(t, 1, total(search.Query{Organization: "department of homeland security"}))
	require.Equal(t, 1, total(search.Query{Text: "threats"}))
}
