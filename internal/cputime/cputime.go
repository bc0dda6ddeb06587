// Package cputime reads the CPU time a process has used, for benchmarks that report CPU a
// record: on a machine shared with other work CPU time moves far less than wall time.
package cputime

import (
	"syscall"
	"time"
)

// Self returns the CPU time (user and system, getrusage(2) RUSAGE_SELF) this process has used
// so far, every goroutine and thread together; 0 where the system does not tell.
func Self() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
