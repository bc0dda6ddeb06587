package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIdentifierSet: an identifier is found again with its first position, and identifiers
// that differ in one byte, by case, by a trailing space, by Unicode normalization, or only in
// length (the empty one, a huge one) are different ones.
func TestIdentifierSet(t *testing.T) {
	s := newIdentifierSet()
	huge := strings.Repeat("x", 1<<20)
	ids := []string{"", "a", "A", "a ", "b", "café", "cafe\u0301", huge, huge + "y", "urn:x:1", "urn:x:2"}
	for i, id := range ids {
		_, found := s.firstAt(id)
		require.False(t, found, "identifier %d is new", i)
		require.True(t, s.add(id, 10*i), "identifier %d is added", i)
	}
	for i, id := range ids {
		pos, found := s.firstAt(id)
		require.True(t, found, "identifier %d was seen", i)
		require.Equal(t, 10*i, pos, "identifier %d keeps the position of its first record", i)
		require.False(t, s.add(id, 999), "a repeat of identifier %d is not added", i)
		pos, _ = s.firstAt(id)
		require.Equal(t, 10*i, pos, "a repeat does not move the first position")
	}
	require.Equal(t, len(ids), s.len())
}

// TestIdentifierSetMany: 200,000 identifiers that share long prefixes and differ in a counter
// (as a catalog's often do) are all different ones, and each keeps its own position.
func TestIdentifierSetMany(t *testing.T) {
	s := newIdentifierSet()
	const n = 200_000
	prefix := "https://example.gov/data.json#" + strings.Repeat("dataset/", 8)
	for i := range n {
		require.True(t, s.add(fmt.Sprintf("%s%d", prefix, i), i), "identifier %d is new", i)
	}
	require.Equal(t, n, s.len())
	for i := 0; i < n; i += 997 {
		pos, found := s.firstAt(fmt.Sprintf("%s%d", prefix, i))
		require.True(t, found)
		require.Equal(t, i, pos)
	}
	_, found := s.firstAt(prefix + "200000")
	require.False(t, found)
}
