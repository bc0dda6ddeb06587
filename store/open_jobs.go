package store

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/harvester-dev/harvester/harvest"
)

// OpenJobs answers "is this job still in progress?" for every record without a store read per
// record: a finished job is remembered for good, an open one is re-checked after recheck. The
// stages use it to drop the records of a job that ended (failed or cancelled). Safe for
// concurrent use.
type OpenJobs struct {
	store   JobGetter
	recheck time.Duration

	mu       sync.Mutex
	finished map[string]bool
	checked  map[string]time.Time
}

// maxRemembered bounds the cache; past it the cache starts afresh.
const maxRemembered = 10000

// JobGetter is the part of Store that OpenJobs reads.
type JobGetter interface {
	JobGet(ctx context.Context, jobID string) (*HarvestJob, error)
}

// NewOpenJobs returns a cache over st that reads a job's status at most once per recheck.
func NewOpenJobs(st JobGetter, recheck time.Duration) *OpenJobs {
	return &OpenJobs{store: st, recheck: recheck, finished: map[string]bool{}, checked: map[string]time.Time{}}
}

// Open reports whether jobID is still new or in progress. A job the database does not have
// (deleted with its source, or another deployment's) is harvest.UnknownJob, which the router
// counts, logs and acks; a store error is returned as is.
func (o *OpenJobs) Open(ctx context.Context, jobID string) (bool, error) {
	o.mu.Lock()
	if o.finished[jobID] {
		o.mu.Unlock()
		return false, nil
	}
	if t, ok := o.checked[jobID]; ok && time.Since(t) < o.recheck {
		o.mu.Unlock()
		return true, nil
	}
	o.mu.Unlock()
	job, err := o.store.JobGet(ctx, jobID)
	if errors.Is(err, ErrNotFound) {
		return false, harvest.UnknownJob(jobID)
	}
	if err != nil {
		return false, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.finished)+len(o.checked) > maxRemembered {
		o.finished, o.checked = map[string]bool{}, map[string]time.Time{}
	}
	if job.Status.Finished() {
		o.finished[jobID] = true
		delete(o.checked, jobID)
		return false, nil
	}
	o.checked[jobID] = time.Now()
	return true, nil
}

// Admit decodes msg (a record message, harvest.Decode) into rec and says whether its job has
// ended, for the stages that must not act on an ended job's records (COMPARE drops them, SYNC
// settles them as refused). A replayed record (rec.Replay) is always admitted: ended false,
// err nil. Errors: the decode's, as a harvest.PermanentError; harvest.UnknownJob for a job this
// database does not have; a store error from Open as is.
func (o *OpenJobs) Admit(msg *harvest.Message, rec *harvest.Record) (ended bool, err error) {
	if err := harvest.Decode(msg, rec); err != nil {
		return false, harvest.Permanent(err)
	}
	if rec.Replay {
		return false, nil
	}
	open, err := o.Open(msg.Context(), rec.JobID)
	if err != nil {
		return false, err
	}
	return !open, nil
}
