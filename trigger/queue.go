package trigger

import (
	"context"
	"errors"
	"fmt"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// ErrUnknownSource is returned by Enqueue for a source id that does not exist.
var ErrUnknownSource = errors.New("unknown harvest source")

// Enqueue creates a job for the source in status new: it waits there until a scheduler starts
// it within the cap on jobs in progress and sends its job message (Publish). It returns ErrJobInProgress when the source
// already has an unfinished job, ErrUnknownSource for an unknown source.
func Enqueue(ctx context.Context, st store.Store, sourceID string, jobType harvest.JobType) (*store.HarvestJob, error) {
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: sourceID, JobType: jobType, Queued: true})
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

// Publish sends the job message of a job in progress to EXTRACT, and nothing else: a failure
// is returned and the job left as it is. The scheduler re-drives an orphaned job with it (the
// same job id: the stages are idempotent on it).
func Publish(ctx context.Context, st store.Store, pub message.Publisher, job *store.HarvestJob) error {
	src, err := st.SourceGet(ctx, job.SourceID)
	if err != nil {
		return fmt.Errorf("get source of job %s: %w", job.ID, err)
	}
	return publishJob(ctx, st, pub, job, src)
}

// publishJob sends the job message. Its PublisherName is the name of the source's
// organization (Data.gov's publisher for ISO records that name none), never the source's own
// name or location: a source named after its URL, or a local file path, is no publisher. It
// carries the source's Accept and Options; its auth header stays in the store (EXTRACT reads it).
func publishJob(ctx context.Context, st store.Store, pub message.Publisher, job *store.HarvestJob, src *store.Source) error {
	publisher := ""
	if src.OrganizationID != "" {
		org, err := st.OrganizationGet(ctx, src.OrganizationID)
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
	return pub.Publish(harvest.SubjectExtract, m)
}
