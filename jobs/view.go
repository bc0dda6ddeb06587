package jobs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Report is one harvest job as the operator's views show it: the API's job
// (GET /api/v1/harvest_jobs/{id}), the web UI's job page and progress bar, and the CLI's
// report after `harvester harvest`. They build it here so that they show the same figures.
type Report struct {
	Job *store.HarvestJob
	// Counts are the job's counts; while it runs, Total is its expected count once the listing
	// completed (at least what settled), and until then the records settled so far (the
	// store's total is written when the job ends).
	harvest.Counts
	// PercentSettled is PercentSettled(Job).
	PercentSettled *float64
	// JobErrors are the job's job-level errors, oldest first (View only; Progress leaves nil).
	JobErrors []*store.JobError
	// NotModified: the source answered 304 Not Modified to the job's conditional GET
	// (ReadNotModified only).
	NotModified bool
}

// Progress is j's report from its own row alone (no store reads): its counts and percent.
func Progress(j *store.HarvestJob) *Report {
	r := &Report{Job: j, Counts: j.Counts, PercentSettled: PercentSettled(j)}
	if !j.Status.Finished() {
		r.Total = j.Settled
		if j.Expected != nil {
			r.Total = max(*j.Expected, j.Settled)
		}
	}
	return r
}

// View is j's report with its job errors: Progress, and st's JobErrorList (one read). The
// error is st's, wrapped with the job's id. NotModified is left to ReadNotModified, a second
// read the web UI's job page does not make.
func View(ctx context.Context, st store.Store, j *store.HarvestJob) (*Report, error) {
	r := Progress(j)
	var err error
	if r.JobErrors, err = st.JobErrorList(ctx, j.ID); err != nil {
		return nil, fmt.Errorf("job errors of %s: %w", j.ID, err)
	}
	return r, nil
}

// ReadNotModified sets r.NotModified from the job's fetch in st (one read); a job that saved
// no fetch (a WAF, a clear job) is left false. The error is st's, wrapped with the job's id.
func (r *Report) ReadNotModified(ctx context.Context, st store.Store) error {
	f, err := st.JobFetchGet(ctx, r.Job.ID)
	switch {
	case err == nil:
		r.NotModified = f.NotModified
	case !errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("fetch of job %s: %w", r.Job.ID, err)
	}
	return nil
}

// Duration is how long the job ran: until it finished, or until now while it runs, to the second.
func (r *Report) Duration(now time.Time) time.Duration {
	end := now
	if r.Job.FinishedAt != nil {
		end = *r.Job.FinishedAt
	}
	return end.Sub(r.Job.CreatedAt).Round(time.Second)
}

// PercentSettled is settled*100/expected to one decimal, at most 100: 100 for a complete job
// or when nothing is expected, nil while expected is unknown (also for a job that ended in
// error before its listing completed). A job that ended in error (cancelled, failed) keeps the
// share it had settled: it settles no more. The API's percent_settled and the web UI's
// progress bars show it.
func PercentSettled(j *store.HarvestJob) *float64 {
	var p float64
	switch {
	case j.Status == harvest.JobComplete:
		p = 100
	case j.Expected == nil:
		return nil
	case *j.Expected <= 0:
		p = 100
	default:
		p = min(100, math.Round(float64(j.Settled)*1000/float64(*j.Expected))/10)
	}
	return &p
}
