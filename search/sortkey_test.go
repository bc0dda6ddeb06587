package search_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

func TestSortKeyFoldsCaseAndAccents(t *testing.T) {
	for title, want := range map[string]string{
		"Ábaco Survey":        "abaco survey",
		"Straße":              "strasse",
		"Æsir, Øresund, Łódź": "aesir, oresund, lodz",
		"ﬁsh":                 "fish", // a compatibility ligature
		"İstanbul":            "istanbul",
		"\u0301":              "", // marks only: no key, as no title
		"日本 😀":                "日本 😀",
	} {
		require.Equal(t, want, search.SortKey(title), title)
	}
}

// TestSortKeyCutsAtACharacterBoundary: the key is at most search.SortKeyMax bytes, valid UTF-8,
// whatever character the cut falls in.
func TestSortKeyCutsAtACharacterBoundary(t *testing.T) {
	long := strings.Repeat("a", search.SortKeyMax-1)
	for title, want := range map[string]string{
		long + "ß":               long + "s",
		long + "😀":               long,
		long + "é😀":              long + "e",
		strings.Repeat("日", 200): strings.Repeat("日", search.SortKeyMax/3),
	} {
		got := search.SortKey(title)
		require.Equal(t, want, got)
		require.LessOrEqual(t, len(got), search.SortKeyMax)
		require.True(t, utf8.ValidString(got))
	}
}

func TestFromDatasetSetsTheSortKey(t *testing.T) {
	doc := search.FromDataset(&store.Dataset{ID: "d", DCAT: []byte(`{"title": " Éclair Bakeries "}`)}, "Org")
	require.Equal(t, "eclair bakeries", doc.TitleSort)
}
