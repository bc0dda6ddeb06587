package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// peakRSSEnv names the file a re-executed test binary writes its child's peak RSS to; set, the
// test binary runs its arguments as that child instead of the tests (runMeasuringRSS).
const peakRSSEnv = "HARVESTER_TEST_PEAK_RSS_FILE"

// runMeasured runs cmd to its end and returns the peak resident set of cmd's process alone, in
// KiB, with cmd.Run's error.
//
// Why not cmd.ProcessState's ru_maxrss: Go starts a child with vfork (CLONE_VM), so the child
// execs from the test process's address space, and Linux keeps that space's high-water mark as
// the child's starting ru_maxrss (exec_mmap). The figure was the larger of the harvester's peak
// and the test process's: 184 MiB on the second of two runs whose harvests peaked near 130, and
// CI's failure at 153.5 MiB while the package's other tests held the test process's memory.
// So cmd runs under a copy of the test binary started afresh (a few MiB resident), which
// reports its child's ru_maxrss: the larger of that copy's small start and the harvester's own.
// cmd's Stdin, Stdout and Stderr are passed through; its Env too.
func runMeasured(t *testing.T, cmd *exec.Cmd) (int64, error) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "peak-rss")
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	self, err := os.Executable()
	require.NoError(t, err)
	wrapped := exec.Command(self, append([]string{cmd.Path}, cmd.Args[1:]...)...)
	wrapped.Env = append(env, peakRSSEnv+"="+report)
	wrapped.Stdin, wrapped.Stdout, wrapped.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	runErr := wrapped.Run()
	text, err := os.ReadFile(report)
	require.NoError(t, err, "the measuring process wrote no peak RSS (run: %v)", runErr)
	kib, err := strconv.ParseInt(strings.TrimSpace(string(text)), 10, 64)
	require.NoError(t, err)
	return kib, runErr
}

// runMeasuringRSS is the re-executed test binary's whole life when peakRSSEnv is set: it runs
// os.Args[1:] as a child, writes the child's ru_maxrss (KiB) to the file peakRSSEnv names, and
// exits with the child's exit code (2 when the child could not start).
func runMeasuringRSS(report string) int {
	child := exec.Command(os.Args[1], os.Args[2:]...)
	child.Env = os.Environ()
	for i, kv := range child.Env {
		if strings.HasPrefix(kv, peakRSSEnv+"=") {
			child.Env = append(child.Env[:i:i], child.Env[i+1:]...)
			break
		}
	}
	child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := child.Run()
	if child.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "peak RSS: start", os.Args[1], err)
		return 2
	}
	kib := child.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // Linux: KiB
	if werr := os.WriteFile(report, []byte(strconv.FormatInt(kib, 10)), 0o600); werr != nil {
		fmt.Fprintln(os.Stderr, "peak RSS:", werr)
		return 2
	}
	return child.ProcessState.ExitCode()
}
