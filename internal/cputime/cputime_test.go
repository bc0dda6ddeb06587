package cputime

import (
	"crypto/sha256"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSelfCountsWork: a fixed piece of work moves the process's CPU time forward, by no more
// than the wall time it took on every core (plus a scheduler tick): a reading in the wrong
// unit, or one that never moves, fails.
func TestSelfCountsWork(t *testing.T) {
	start, before := time.Now(), Self()
	require.Positive(t, before, "a running process has used some CPU")
	var sum [32]byte
	for range 200_000 {
		sum = sha256.Sum256(sum[:])
	}
	used, wall := Self()-before, time.Since(start)
	require.Positive(t, used, "200,000 SHA-256 sums took no CPU (%x)", sum[:4])
	require.LessOrEqual(t, used, wall*time.Duration(runtime.NumCPU())+10*time.Millisecond)
}
