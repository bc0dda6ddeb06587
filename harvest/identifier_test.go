package harvest

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckIdentifier: the rules EXTRACT and the validate API key a catalog's datasets by.
func TestCheckIdentifier(t *testing.T) {
	seen := map[string]int{"a": 0}
	require.Nil(t, CheckIdentifier(1, "b", "", nil, seen))
	require.Equal(t, &IdentifierProblem{Type: "DuplicateIdentifier", Identifier: "a",
		Message: `dataset #3 repeats identifier "a" of dataset #1 in this catalog; the first one is kept`},
		CheckIdentifier(2, "a", "T", nil, seen))
	require.Equal(t, &IdentifierProblem{Type: "InvalidIdentifier",
		Message: `dataset #2 (title "T"): identifier "a\x00" contains U+0000 (NUL), which a database text column cannot hold`},
		CheckIdentifier(1, "a\x00", "T", nil, seen))
	missing := errors.New(`dataset #2 (title "T") has no identifier (missing or blank)`)
	require.Equal(t, &IdentifierProblem{Type: "MissingIdentifier", Message: missing.Error()},
		CheckIdentifier(1, "", "T", missing, seen))
	require.Equal(t, map[string]int{"a": 0}, seen, "seen is only read")
}
