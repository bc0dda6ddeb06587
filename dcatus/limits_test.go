package dcatus

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// Shorten cuts at a word within the limit, on a character boundary, and says so with "…".
func TestShorten(t *testing.T) {
	t.Parallel()
	s, cut := Shorten("short", 10)
	require.Equal(t, "short", s)
	require.False(t, cut)

	s, cut = Shorten("the quick brown fox", 12)
	require.True(t, cut)
	require.Equal(t, "the quick…", s)

	long := strings.Repeat("é", 20000) // one word: cut mid-word, on a rune boundary
	s, cut = Shorten(long, MaxDescription)
	require.True(t, cut)
	require.True(t, utf8.ValidString(s))
	require.Equal(t, MaxDescription, utf8.RuneCountInString(s))

	words := strings.Repeat("Streamflow data for the basin. ", 500) // 15,500 characters
	s, _ = Shorten(words, MaxDescription)
	require.LessOrEqual(t, utf8.RuneCountInString(s), MaxDescription)
	require.True(t, strings.HasPrefix(words, strings.TrimSuffix(s, "…")+" "), "cut at a word: %q", s[len(s)-20:])
}
