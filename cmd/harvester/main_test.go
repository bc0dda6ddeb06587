package main

import (
	"os"
	"testing"
)

// TestMain lets the tests' sources live on 127.0.0.1 (httptest servers), which the harvester
// refuses by default; worker processes started by the tests inherit the setting.
// TestPrivateSourcesRefused checks the default.
func TestMain(m *testing.M) {
	os.Setenv("HARVESTER_ALLOW_PRIVATE_SOURCES", "1")
	os.Exit(m.Run())
}
