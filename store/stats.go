package store

import (
	"time"

	"github.com/harvester-dev/harvester/harvest"
)

// JobStats are figures over every job, for metrics (store.JobStats).
type JobStats struct {
	// InProgress is how many jobs are in progress.
	InProgress int
	// InProgressExpected sums the expected outcomes of the jobs in progress whose listing
	// completed; InProgressSettled sums the outcomes settled so far of every job in progress.
	InProgressExpected, InProgressSettled int
	// OldestStart is when the oldest job in progress was created; nil when none is.
	OldestStart *time.Time
	// StalestHeartbeat is the oldest heartbeat of a job in progress (its creation when it has
	// none yet); nil when none is in progress.
	StalestHeartbeat *time.Time
	// Latest groups the sources by the status (complete or error) of their latest finished
	// job, latest by creation; a status no source's latest job has is absent.
	Latest []SourceLatestJobs
	// MaxFailedStreak is the longest run of failed jobs of one source since its latest complete
	// job (or its first job): 3 means some source failed its last three runs. 0 when none did.
	MaxFailedStreak int
}

// SourceLatestJobs is the sources whose latest finished job ended with Status.
type SourceLatestJobs struct {
	Status       harvest.JobStatus
	Sources      int        // how many sources
	LastFinished *time.Time // the latest date_finished among those jobs; nil if none has one
}

// PoolStats are a connection pool's figures (pgxpool.Stat's), for metrics.
type PoolStats struct {
	MaxConns, TotalConns, IdleConns, AcquiredConns int
	// AcquireCount counts the connections acquired, EmptyAcquireCount those that had to wait
	// for one (none idle), CanceledAcquireCount those given up on; AcquireDuration sums the
	// time acquisitions took.
	AcquireCount, EmptyAcquireCount, CanceledAcquireCount int64
	AcquireDuration                                       time.Duration
}

// Pooled is a Store over a connection pool that reports its figures (the Postgres store).
type Pooled interface {
	PoolStats() PoolStats
}
