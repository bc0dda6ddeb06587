package search_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
)

func TestCheckIndexName(t *testing.T) {
	for _, ok := range []string{"harvester-datasets", "a", "catalog_2", "données", strings.Repeat("x", search.MaxIndexName)} {
		require.NoError(t, search.CheckIndexName(ok), ok)
	}
	for name, why := range map[string]string{
		"":         "is empty",
		"Datasets": `has upper case letters ("datasets" would do)`,
		"a/b":      `contains '/'`,
		`a\b`:      `contains '\\'`,
		"a b":      `contains ' '`,
		"a:b":      `contains ':'`,
		"a,b":      `contains ','`,
		"a#b":      `contains '#'`,
		"a*":       `contains '*'`,
		"_x":       `starts with "_"`,
		"-x":       `starts with "-"`,
		"+x":       `starts with "+"`,
		".":        `starts with "."`,
		"..":       `starts with "."`,
		".hidden":  `starts with "."`,
		strings.Repeat("x", search.MaxIndexName+1): "is 236 bytes long",
	} {
		err := search.CheckIndexName(name)
		require.Error(t, err, name)
		require.ErrorContains(t, err, why, name)
		require.ErrorContains(t, err, "an index name is lower case", name)
	}
}
