package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// TestSourceTypeReferenceIsCurrent: docs/source-type-reference.md is what `harvester source
// types` prints from the rule table now, and it names every source type and setting.
func TestSourceTypeReferenceIsCurrent(t *testing.T) {
	var b strings.Builder
	require.NoError(t, writeSourceTypes(&b))
	doc, err := os.ReadFile("../../docs/source-type-reference.md")
	require.NoError(t, err)
	require.Equal(t, b.String(), string(doc),
		"docs/source-type-reference.md is stale: go run ./cmd/harvester source types > docs/source-type-reference.md")
	for _, s := range harvest.SourceSpecs {
		require.Contains(t, b.String(), "| `"+string(s.Type)+"` |")
		for _, st := range s.Settings {
			require.Contains(t, b.String(), "| `"+string(s.Type)+"` | `"+st.Name+"` |")
		}
	}
	root := rootCommand()
	var out strings.Builder
	root.SetOut(&out)
	root.SetArgs([]string{"source", "types"})
	require.NoError(t, root.Execute())
	require.Equal(t, b.String(), out.String())
}
