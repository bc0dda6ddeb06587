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
//
// GOGC=off (the limit the only trigger) was measured as a default and not taken
// (docs/benchmarks.md, 2026-12-07, issue 37): it keeps peak RSS flat from 10,000 to 100,000
// records (+1-2%, against +20-27% here) at slightly less CPU without a search index, but puts
// every job's peak at the limit (a 10,000-record job 124-154 MiB instead of ~95), leaves an
// idle serve holding its garbage up to the limit (no 2-minute forced collection), and with
// bleve either costs CPU (a 96 MiB limit) or passes 256 MiB (128 MiB). Operators who want a
// fixed footprint set GOGC=off and GOMEMLIMIT themselves.
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
