package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGCDefaults: without GOGC and GOMEMLIMIT the process runs at defaultGOGC with the soft
// limit defaultMemoryLimit; a variable that is set wins.
func TestGCDefaults(t *testing.T) {
	before, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(before); debug.SetMemoryLimit(limit) })

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	setGCDefaults()
	require.Equal(t, defaultGOGC, debug.SetGCPercent(100))
	require.Equal(t, int64(defaultMemoryLimit), debug.SetMemoryLimit(1<<40))

	t.Setenv("GOGC", "50")
	t.Setenv("GOMEMLIMIT", "1GiB")
	setGCDefaults()
	require.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: left as the runtime read it")
	require.Equal(t, int64(1<<40), debug.SetMemoryLimit(-1), "GOMEMLIMIT set: left as the runtime read it")
}
