package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// RunOptions configure Run.
type RunOptions struct {
	// Timeout bounds the wait for the job to finish; 0: no bound but ctx.
	Timeout time.Duration
	// Observe, when not nil, gets every polled state of the job, as WaitObserve's observe.
	Observe func(*store.HarvestJob)
	// Waiter names who waits, for the job error of a wait that stops: "<Waiter> stopped
	// waiting: <cause>" (default "the caller").
	Waiter string
	// Poll is how often the job is read; 0: 50ms.
	Poll time.Duration
	// ReportGrace is how long Run waits, once the job finished, for the aggregator's report
	// event (AwaitReport); 0: 10s.
	ReportGrace time.Duration
}

// BusyError is Run's error when the source already has an unfinished job (ErrJobInProgress,
// which it wraps): the source, and the job that holds it (Busy), nil when that job ended in the
// meantime.
type BusyError struct {
	Source *store.Source
	Job    *store.HarvestJob
}

func (e *BusyError) Error() string {
	if e.Job == nil {
		return fmt.Sprintf("%v: %s had one, which has just ended", ErrJobInProgress, e.Source.URL)
	}
	return fmt.Sprintf("%v: %s has job %s (%s, %s)", ErrJobInProgress, e.Source.URL, e.Job.ID, e.Job.JobType, e.Job.Status)
}

func (e *BusyError) Unwrap() error { return ErrJobInProgress }

// StoppedError is Run's error when the wait stopped before the job finished: ctx ended (Err is
// ctx's error) or RunOptions.Timeout passed (Err is context.DeadlineExceeded), or the job could
// not be read. The job was ended in error (harvest.TypeCancelledJob) so that it does not block
// its source, and the stages drop its remaining records.
type StoppedError struct {
	JobID string
	Err   error
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("waiting for job %s: %v", e.JobID, e.Err)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// Run is one job from start to end in the caller's process, as `harvester harvest` runs it:
// Start (the source found or created: sources.Sources.Ensure), then wait until the job
// finished (WaitObserve), then its report event (when c has a Bus: AwaitReport, up to
// RunOptions.ReportGrace), then a refresh of c.Index so that the job's datasets are searchable.
// A wait that stops (ctx ended, RunOptions.Timeout) ends the job (Fail, CancelledJob); after a
// timeout Run still waits for the report event, as the stages still run. It returns the job as
// it finished; a *BusyError when the source has an unfinished job; a *StoppedError with the
// job's id when the wait stopped; or Start's error.
func (c Control) Run(ctx context.Context, p Params, o RunOptions) (*store.HarvestJob, error) {
	var reports <-chan *harvest.Report
	if c.Bus != nil {
		ch, unsubscribe, err := c.Bus.Reports()
		if err != nil {
			return nil, err
		}
		defer unsubscribe()
		reports = ch
	}
	job, err := c.Start(ctx, p)
	if errors.Is(err, ErrJobInProgress) {
		return nil, c.busyError(ctx, p, err)
	}
	if err != nil {
		return nil, err
	}
	wctx := ctx
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	grace := cmp.Or(o.ReportGrace, 10*time.Second)
	done, err := WaitObserve(wctx, c.Store, job.ID, cmp.Or(o.Poll, 50*time.Millisecond), o.Observe)
	if err != nil {
		waiter := o.Waiter
		if waiter == "" {
			waiter = "the caller"
		}
		_, ferr := c.Fail(context.WithoutCancel(ctx), job.ID, harvest.TypeCancelledJob,
			fmt.Sprintf("%s stopped waiting: %v", waiter, err))
		if ferr == nil && ctx.Err() == nil && reports != nil {
			AwaitReport(ctx, reports, job.ID, grace)
		}
		return nil, &StoppedError{JobID: job.ID, Err: err}
	}
	if reports != nil {
		AwaitReport(wctx, reports, job.ID, grace)
	}
	if c.Index != nil {
		if err := c.Index.Refresh(ctx); err != nil {
			return done, fmt.Errorf("refresh the search index after job %s: %w", job.ID, err)
		}
	}
	return done, nil
}

// busyError is the *BusyError of p's source, or err with what went wrong finding its job.
func (c Control) busyError(ctx context.Context, p Params, err error) error {
	src, ferr := sources.ByURL(ctx, c.Store, sources.NormalURL(p.SourceType, p.URL)) // it exists: Start found it
	var held *store.HarvestJob
	if ferr == nil {
		held, ferr = c.Busy(ctx, src.ID)
	}
	if ferr != nil {
		return fmt.Errorf("%w: %s (finding which job holds it: %v)", err, p.URL, ferr)
	}
	return &BusyError{Source: src, Job: held}
}
