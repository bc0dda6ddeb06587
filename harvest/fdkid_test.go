package harvest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFdkID: Java's UUID.nameUUIDFromBytes, whose values these are (MD5 of the bytes, no
// namespace, version 3).
func TestFdkID(t *testing.T) {
	t.Parallel()
	// UUID.nameUUIDFromBytes("test".getBytes()) and ("".getBytes()) in Java.
	require.Equal(t, "098f6bcd-4621-3373-8ade-4e832627b4f6", FdkID("test"))
	require.Equal(t, "d41d8cd9-8f00-3204-a980-0998ecf8427e", FdkID(""))
	id := FdkID("https://data.norge.no/dataset/0")
	require.Len(t, id, 36)
	require.Equal(t, byte('3'), id[14], "version 3")
	require.Contains(t, "89ab", string(id[19]), "RFC 4122 variant")
	require.Equal(t, id, FdkID("https://data.norge.no/dataset/0"))
	require.NotEqual(t, id, FdkID("https://data.norge.no/dataset/1"))
}
