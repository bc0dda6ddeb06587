package dcatap

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLabelTable: labels are numbered 0, 1, … in the order first seen, again as the same number
// through the table's growth, and a label never numbered is not found.
func TestLabelTable(t *testing.T) {
	l := newLabelTable()
	const n = 100_000
	for i := range n {
		id, ok := l.number("b" + strconv.Itoa(i))
		require.True(t, ok)
		require.Equal(t, int32(i), id)
	}
	id, ok := l.number("")
	require.True(t, ok)
	require.Equal(t, int32(n), id)
	for i := range n {
		id, ok := l.number("b" + strconv.Itoa(i))
		require.True(t, ok)
		require.Equal(t, int32(i), id)
		require.Equal(t, "b"+strconv.Itoa(i), string(l.at(id)))
	}
	_, found := l.lookup("b" + strconv.Itoa(n))
	require.False(t, found)
	require.Equal(t, n+1, l.len())
}
