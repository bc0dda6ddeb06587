package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Enqueue creates a job for the source in status new: it waits there until a scheduler starts
// it within the cap on jobs in progress (StartQueued). It returns ErrJobInProgress when the
// source already has an unfinished job, ErrUnknownSource for an unknown source.
func (c Control) Enqueue(ctx context.Context, sourceID string, jobType harvest.JobType) (*store.HarvestJob, error) {
	job, err := c.Store.JobInsert(ctx, &store.JobInsertParams{SourceID: sourceID, JobType: jobType, Queued: true})
	switch {
	case errors.Is(err, store.ErrConflict):
		return nil, ErrJobInProgress
	case errors.Is(err, store.ErrNotFound):
		return nil, ErrUnknownSource
	case err != nil:
		return nil, fmt.Errorf("queue job: %w", err)
	}
	return job, nil
}

// StartQueued starts the oldest queued jobs while fewer than maxInProgress jobs are in
// progress (store.Store.JobStartQueued) and sends each one's job message to EXTRACT. It returns
// the jobs started and the publish errors joined: a job whose message could not be sent stays
// in progress with no heartbeat after this one, so the scheduler's orphan cleanup re-drives it.
func (c Control) StartQueued(ctx context.Context, maxInProgress int) ([]*store.HarvestJob, error) {
	started, err := c.Store.JobStartQueued(ctx, &store.JobStartQueuedParams{MaxInProgress: maxInProgress})
	if err != nil {
		return nil, fmt.Errorf("start queued jobs: %w", err)
	}
	var errs []error
	for _, job := range started {
		if err := c.publish(ctx, job); err != nil {
			errs = append(errs, fmt.Errorf("dispatch job %s (it will be re-driven): %w", job.ID, err))
		}
	}
	return started, errors.Join(errs...)
}

// Redrive sends an orphaned job's message to EXTRACT again, with the same job id (the stages
// are idempotent on it), when store.Store.JobRedrive counts one more re-drive of it (the job
// had no heartbeat since p.Before and fewer than p.Max re-drives). It returns the job as it now
// is and whether it was re-driven; store.ErrNotFound (wrapped) when it was deleted with its
// source. A job whose re-drives ran out is left as it is: end it with Fail.
func (c Control) Redrive(ctx context.Context, p *store.JobRedriveParams) (*store.HarvestJob, bool, error) {
	job, redriven, err := c.Store.JobRedrive(ctx, p)
	if err != nil || !redriven {
		return job, false, err
	}
	return job, true, c.publish(ctx, job)
}

// publish sends the job message of a job in progress to EXTRACT, and nothing else: a failure
// is returned and the job left as it is.
func (c Control) publish(ctx context.Context, job *store.HarvestJob) error {
	src, err := c.Store.SourceGet(ctx, job.SourceID)
	if err != nil {
		return fmt.Errorf("get source of job %s: %w", job.ID, err)
	}
	return c.publishJob(ctx, job, src)
}

// publishJob sends the job message. Its PublisherName is the name of the source's
// organization (Data.gov's publisher for ISO records that name none), never the source's own
// name or location: a source named after its URL, or a local file path, is no publisher. It
// carries the source's Accept and Options; its auth header stays in the store (EXTRACT reads it).
func (c Control) publishJob(ctx context.Context, job *store.HarvestJob, src *store.Source) error {
	publisher := ""
	if src.OrganizationID != "" {
		org, err := c.Store.OrganizationGet(ctx, src.OrganizationID)
		switch {
		case err == nil:
			publisher = org.Name
		case !errors.Is(err, store.ErrNotFound):
			return fmt.Errorf("get organization of source %s: %w", src.ID, err)
		}
	}
	m, err := harvest.NewMessage(harvest.SubjectExtract, &harvest.Job{V: harvest.Version, JobID: job.ID,
		SourceID: src.ID, JobType: job.JobType, SourceType: src.SourceType, SchemaType: src.SchemaType, URL: src.URL,
		CollectionParentURL: src.CollectionParentURL, PublisherName: publisher,
		WAFTimeZone: src.WAFTimeZone, Accept: src.Accept, Options: src.Options}, // never the auth header
		harvest.MetaJobID, job.ID, harvest.MetaSourceID, src.ID)
	if err != nil {
		return err
	}
	return c.Publisher.Publish(harvest.SubjectExtract, m)
}
