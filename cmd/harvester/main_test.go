package main

import (
	"os"
	"testing"
)

// TestMain lets the tests' sources live on 127.0.0.1 (httptest servers), which the harvester
// refuses by default; worker processes started by the tests inherit the setting.
// TestPrivateSourcesRefused checks the default. A source that keeps failing is retried for 2 s,
// not the default 2 minutes (TestHarvestWAFThroughOutage checks the default). Commands that do
// not name a data directory keep their search index in a temporary one, not in the source tree. With peakRSSEnv set, the binary measures a command instead (runMeasured).
func TestMain(m *testing.M) {
	if report := os.Getenv(peakRSSEnv); report != "" {
		os.Exit(runMeasuringRSS(report))
	}
	os.Setenv("HARVESTER_ALLOW_PRIVATE_SOURCES", "1")
	os.Setenv("HARVESTER_FETCH_RETRY_BUDGET", "2s")
	dir, err := os.MkdirTemp("", "harvester-cmd-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("HARVESTER_DATA_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
