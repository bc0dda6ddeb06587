// Package testenv says what a test does when a program or service it needs is missing: in CI
// (CI=true) the test fails, elsewhere it is skipped, saying why and how to get it (as Go's own
// internal/testenv does for the go tool).
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Missing fails the test in CI (CI=true) and skips it elsewhere, with msg.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Tool returns the program a test runs: the value of the environment variable env, else name
// on PATH. Without either it calls Missing with msg.
func Tool(t testing.TB, env, name, msg string) string {
	t.Helper()
	bin := os.Getenv(env)
	if bin == "" {
		bin, _ = exec.LookPath(name)
	}
	if bin == "" {
		Missing(t, msg)
	}
	return bin
}
