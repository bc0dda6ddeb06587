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
// its live heap stays near 10–30 MiB, so with Go's default GOGC=100 a collection starts after
// every 10–30 MiB allocated, several times a second, and the collector took about 17% of the
// process's CPU (background marking 12%, allocation assists 5%). GOGC=300 lets the heap grow
// to four times the live heap between collections, a third as many; the soft limit brings
// collections back as the heap nears 256 MiB, so a large live heap (an RDF source's graph)
// cannot grow the resident set fourfold.
const (
	defaultGOGC        = 300
	defaultMemoryLimit = 256 << 20 // bytes
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
