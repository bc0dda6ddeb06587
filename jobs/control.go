package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// Errors of job control.
var (
	// ErrJobInProgress is returned by Start and Enqueue when the source already has an
	// unfinished job.
	ErrJobInProgress = errors.New("the harvest source already has a job in progress")
	// ErrUnknownSource is returned by Enqueue for a source id that does not exist.
	ErrUnknownSource = errors.New("unknown harvest source")
	// ErrFinished is returned by Cancel for a job that had already finished.
	ErrFinished = errors.New("the harvest job already finished")
	// ErrNoBus is returned by Replay and Replayable when the Control has no Bus.
	ErrNoBus = errors.New("replay needs the NATS bus")
)

// Control starts, ends, re-drives and replays jobs over one store and one bus. It is a small
// value: build one where it is needed, e.g. Control{Store: st, Publisher: pub}.
type Control struct {
	// Store is required.
	Store store.Store
	// Publisher sends job messages to EXTRACT and tells the aggregator of a job ended in error
	// (harvest.SubjectSettled). Start, StartQueued and Redrive need it; without it Fail and
	// Cancel end the job but the aggregator is not told (no report event, email or metric).
	Publisher harvest.Publisher
	// Bus reads the failed subjects (harvest.v1.failed.<stage>) for Replay and Replayable,
	// and publishes the replayed records; nil: they return ErrNoBus.
	Bus *router.Bus
	// Index, when not nil, is the search index: Start writes a source's documents again when
	// it moves the source to another organization (sources.Sources.Index), and Run refreshes
	// it so that the job's datasets are searchable when it returns.
	Index search.Index
}

// New is the Control of a process's store and bus (its publisher too); a nil bus leaves
// Publisher and Bus nil.
func New(st store.Store, bus *router.Bus) Control {
	if bus == nil {
		return Control{Store: st}
	}
	return Control{Store: st, Publisher: bus.Publisher(), Bus: bus}
}

// Fail is the package's Fail over c's store and publisher.
func (c Control) Fail(ctx context.Context, jobID, errType, msg string) (*store.HarvestJob, error) {
	return Fail(ctx, c.Store, c.Publisher, jobID, errType, msg)
}

// JobFailer is what ending a job needs of the store: store.Store has it, and so do the
// stages' narrower stores.
type JobFailer interface {
	JobFail(ctx context.Context, p *store.JobFailParams) (*store.HarvestJob, error)
}

// Fail ends an unfinished job in error with one job error row of type errType (a harvest.Type*
// constant) and msg (store.Store.JobFail, which also gives its pending records their final
// status), then, when the job is in error, tells the aggregator with a harvest.SettledFailed
// message on harvest.SubjectSettled through pub: it publishes the job's harvest report event,
// sends its email and counts it in harvester_jobs_finished_total{status="error"}. With a nil
// pub the aggregator is not told. A job that had already finished keeps its status and gets no
// row. It returns the job as it now is; store.ErrNotFound (wrapped) for an unknown job; a store
// error; or the job and the publish error when it was ended but the aggregator not told.
func Fail(ctx context.Context, st JobFailer, pub harvest.Publisher, jobID, errType, msg string) (*store.HarvestJob, error) {
	job, err := end(ctx, st, jobID, errType, msg)
	if err != nil || job.Status != harvest.JobError || pub == nil {
		return job, err
	}
	m, err := harvest.SettledMessage(harvest.SettleFailed(jobID))
	if err == nil {
		err = pub.Publish(harvest.SubjectSettled, m)
	}
	if err != nil {
		return job, fmt.Errorf("ask the aggregator to report job %s: %w", jobID, err)
	}
	return job, nil
}

// Cancel ends an unfinished job (new or in_progress) in error with a job error of type
// harvest.TypeCancelledJob and message (say who cancelled it), as Fail does, the aggregator
// told. It returns the job as it now is; ErrFinished (wrapped, with the job) when it had
// already finished, also when it finished meanwhile; store.ErrNotFound (wrapped) for an
// unknown job.
func (c Control) Cancel(ctx context.Context, jobID, msg string) (*store.HarvestJob, error) {
	job, err := c.Store.JobGet(ctx, jobID)
	if err != nil {
		return nil, fmt.Errorf("get job %s: %w", jobID, err)
	}
	if !job.Status.Finished() {
		if job, err = c.Fail(ctx, jobID, harvest.TypeCancelledJob, msg); err != nil || job.Status == harvest.JobError {
			return job, err
		}
	}
	return job, fmt.Errorf("%w (status %s)", ErrFinished, job.Status)
}

// FailStage ends the job of f, the harvest.JobFailure a stage's handler returned, as Fail does
// (one job error row of f.Type and f.Message), for the stage's runner in pipeline: it returns
// the harvest.SettledFailed message that tells the aggregator, which the router publishes with
// the ack of the message that failed the job, instead of publishing it. A job that is gone
// (deleted with its source meanwhile) or had already finished gets no message; a store error
// is returned, and the stage's message retried.
func FailStage(ctx context.Context, st JobFailer, f *harvest.JobFailure) ([]*harvest.Message, error) {
	job, err := end(ctx, st, f.JobID, f.Type, f.Message)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	case job.Status != harvest.JobError:
		return nil, nil
	}
	return harvest.Settle(harvest.SettleFailed(f.JobID))
}

// StageFail is the harvest.FailJob of the stages' give-up hooks: it ends the job in error with
// a job error of type harvest.TypeStageError. The hook (harvest.GiveUp) returns the
// harvest.SettledFailed message that tells the aggregator itself.
func StageFail(st JobFailer) harvest.FailJob {
	return func(ctx context.Context, jobID, reason string) error {
		_, err := end(ctx, st, jobID, harvest.TypeStageError, reason)
		return err
	}
}

// end is store.Store.JobFail: the one place a job is ended in error.
func end(ctx context.Context, st JobFailer, jobID, errType, msg string) (*store.HarvestJob, error) {
	job, err := st.JobFail(ctx, &store.JobFailParams{JobID: jobID, Type: errType, Message: msg})
	if err != nil {
		return nil, fmt.Errorf("end job %s in error: %w", jobID, err)
	}
	return job, nil
}

// Busy returns the unfinished job that holds the source (one in progress first, else one
// queued), or nil when it has none: the job that made Start or Enqueue answer
// ErrJobInProgress, unless it ended since.
func (c Control) Busy(ctx context.Context, sourceID string) (*store.HarvestJob, error) {
	for _, status := range []harvest.JobStatus{harvest.JobInProgress, harvest.JobNew} {
		jobs, _, err := c.Store.JobList(ctx, &store.JobListParams{SourceID: sourceID, Status: status,
			PageParams: store.PageParams{Limit: 1}})
		if err != nil {
			return nil, fmt.Errorf("list unfinished jobs of source %s: %w", sourceID, err)
		}
		if len(jobs) > 0 {
			return jobs[0], nil
		}
	}
	return nil, nil
}
