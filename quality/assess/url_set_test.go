package assess

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestURLSetCountsDistinctURLs: a URL is counted once, however often and in whatever order it
// comes; URLs that differ in one byte are two.
func TestURLSetCountsDistinctURLs(t *testing.T) {
	s := newURLSet()
	urls := []string{"https://a.example/x", "https://a.example/y", "https://a.example/x", "", "https://a.example/X", ""}
	var added []string
	for _, u := range urls {
		if s.add(u) {
			added = append(added, u)
		}
	}
	require.Equal(t, []string{"https://a.example/x", "https://a.example/y", "", "https://a.example/X"}, added)
	require.Equal(t, 4, s.len())
}

// TestURLSetKeepsNoURL: the set's memory does not follow the URLs' lengths. 20,000 distinct URLs
// of 1 KiB each, every one a string of its own that only the set could keep, leave under 2 MiB
// held (a hash and a slot each); a map of the strings held their 20 MiB.
func TestURLSetKeepsNoURL(t *testing.T) {
	const n = 20_000
	pad := strings.Repeat("p", 1000)
	before := liveHeap()
	s := newURLSet()
	for i := range n {
		require.True(t, s.add(fmt.Sprintf("https://data.example/%s/%d", pad, i)))
	}
	held := int64(liveHeap()) - int64(before)
	runtime.KeepAlive(s)
	require.Equal(t, n, s.len())
	require.Less(t, held, int64(2<<20), "the set holds %d bytes for %d URLs of 1 KiB", held, n)
}

// liveHeap is the heap's live bytes after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
