package main

import (
	"os"
	"runtime/debug"
)

// The garbage collector's defaults for the harvester process, each applied only when its
// environment variable (GOGC, GOMEMLIMIT; see the runtime package) is not set.
//
// Measured with `go run ./bench -profile-dir` (first harvest, bleve index): the harvester
// allocates about 285 KB per record (most of it bleve's segment building and merging) while
// its live heap stays near 10–45 MiB, so with Go's default GOGC=100 a collection starts after
// every 10–45 MiB allocated, several times a second, and the collector took about 17% of the
// process's CPU (background marking 12%, allocation assists 5%); at GOGC=300 it took 7%. But
// GOGC alone lets the heap grow to four times the live heap: anonymous memory reached 172 MiB
// in a 100,000-record first harvest (91 MiB at GOGC=100). The soft limit of 128 MiB brings
// collections back as the heap nears it, so the collector runs rarely while the heap is small
// and the resident set stays near the limit when it is not. A live heap over the limit (an
// RDF source's whole graph) makes the collector run continuously, within the runtime's cap of
// half the CPU: set GOMEMLIMIT higher for such sources.
const (
	defaultGOGC        = 300
	defaultMemoryLimit = 128 << 20 // bytes
)

// setGCDefaults applies defaultGOGC and defaultMemoryLimit where the environment sets none.
func setGCDefaults() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGOGC)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}
