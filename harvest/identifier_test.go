package harvest

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckIdentifier: the rules EXTRACT and the validate API key a catalog's datasets by.
func TestCheckIdentifier(t *testing.T) {
	seen := map[string]int{"a": 0}
	require.Nil(t, CheckIdentifier(1, "b", "", nil, seen))
	require.Equal(t, &IdentifierProblem{Type: TypeDuplicateIdentifier, Identifier: "a",
		Message: `dataset #3 repeats identifier "a" of dataset #1 in this catalog; the first one is kept`},
		CheckIdentifier(2, "a", "T", nil, seen))
	require.Equal(t, &IdentifierProblem{Type: TypeInvalidIdentifier,
		Message: `dataset #2 (title "T"): identifier "a\x00" contains U+0000 (NUL), which a database text column cannot hold`},
		CheckIdentifier(1, "a\x00", "T", nil, seen))
	missing := errors.New(`dataset #2 (title "T") has no identifier (missing or blank)`)
	require.Equal(t, &IdentifierProblem{Type: TypeMissingIdentifier, Message: missing.Error()},
		CheckIdentifier(1, "", "T", missing, seen))
	require.Equal(t, map[string]int{"a": 0}, seen, "seen is only read")

	// D7: a 3,000-byte identifier is refused, and the problem names it clipped.
	long := strings.Repeat("x", 3000)
	p := CheckIdentifier(1, long, "", nil, seen)
	require.Equal(t, TypeIdentifierTooLong, p.Type)
	require.Equal(t, "dataset #2: its identifier is 3000 bytes long, over the identifier cap of 2048 bytes", p.Message)
	require.Equal(t, ClipIdentifier(long), p.Identifier)
	require.Nil(t, CheckIdentifier(1, long[:MaxIdentifierBytes], "", nil, seen))
}

// TestClipIdentifier (D7): an identifier over MaxIdentifierBytes keeps its first bytes, cut at a
// character boundary, and says how long it was.
func TestClipIdentifier(t *testing.T) {
	require.Equal(t, "short", ClipIdentifier("short"))
	exact := strings.Repeat("a", MaxIdentifierBytes)
	require.Equal(t, exact, ClipIdentifier(exact))
	require.Equal(t, exact+"…(2049 bytes)", ClipIdentifier(exact+"b"))
	// "é" is two bytes: one starting at byte 2047 is not cut in half.
	mixed := strings.Repeat("a", MaxIdentifierBytes-1) + "é" + "tail"
	require.Equal(t, strings.Repeat("a", MaxIdentifierBytes-1)+"…(2053 bytes)", ClipIdentifier(mixed))
}
