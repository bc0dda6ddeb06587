package catalogsync

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSlug(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Federal Register: Rules/Notices 2.0", "federal-register-rules-notices-2-0"},
		{"Données économiques  de Paris", "donnees-economiques-de-paris"},
		{"  (Weird) & chars!! ", "weird-chars"},
		{"東京", "dataset"},
		{"A", "a-"},
	} {
		require.Equal(t, tc.want, Slug(tc.in), tc.in)
	}
	long := Slug(strings.Repeat("very long title ", 10) + "2019")
	require.LessOrEqual(t, len(long), MaxSlugLen)
	require.True(t, strings.HasSuffix(long, "-2019"), long)
	s := suffixed(strings.Repeat("x", MaxSlugLen))
	require.Len(t, s, MaxSlugLen)
	require.Regexp(t, `^x+-[0-9a-f]{5}$`, s)
}
