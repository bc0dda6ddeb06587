package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// Params describes the job to start: its type, and its source, found by its URL or created
// (the fields of sources.EnsureParams, which says what each means; kept flat here, as
// pipelinetest.Source and the stage tests write them).
type Params struct {
	URL                 string
	Name                string
	SourceType          harvest.SourceType
	SchemaType          harvest.SchemaType
	JobType             harvest.JobType
	CollectionParentURL string
	WAFTimeZone         string
	Accept              string
	AuthHeader          *store.AuthHeader
	Options             map[string]string
	Organization        string
	Precedence          *int
}

// source is the source part of p.
func (p Params) source() sources.EnsureParams {
	return sources.EnsureParams{URL: p.URL, Name: p.Name, SourceType: p.SourceType, SchemaType: p.SchemaType,
		CollectionParentURL: p.CollectionParentURL, WAFTimeZone: p.WAFTimeZone, Accept: p.Accept,
		AuthHeader: p.AuthHeader, Options: p.Options, Organization: p.Organization, Precedence: p.Precedence}
}

// Start creates the job in progress and sends its job message to EXTRACT (the one-shot CLI's
// way; the API, the scheduler and trigger messages Enqueue instead), after finding or creating
// its source (sources.Sources.Ensure: attached to p.Organization and given p.Precedence when
// those are set; moved to another organization, its search documents are written again when c
// has an Index). It returns the job as inserted, or ErrJobInProgress, or a store, index or
// publish error (a job whose message could not be published is failed, TriggerError, so it
// does not block its source).
func (c Control) Start(ctx context.Context, p Params) (*store.HarvestJob, error) {
	st := c.Store
	src, err := c.sources().Ensure(ctx, p.source())
	if err != nil {
		return nil, err
	}
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: p.JobType})
	if errors.Is(err, store.ErrConflict) {
		return nil, ErrJobInProgress
	}
	if err != nil {
		return nil, fmt.Errorf("create job: %w", err)
	}
	if err := c.publishJob(ctx, job, src); err != nil {
		_, _ = c.Fail(ctx, job.ID, harvest.TypeTriggerError, err.Error())
		return nil, fmt.Errorf("send job to extract: %w", err)
	}
	return job, nil
}

// sources is the source administration over c's store and index.
func (c Control) sources() sources.Sources { return sources.Sources{Store: c.Store, Index: c.Index} }

// Wait polls the job every interval until it is complete or error, and returns it. It
// returns ctx's error if ctx ends first.
func Wait(ctx context.Context, st store.Store, jobID string, interval time.Duration) (*store.HarvestJob, error) {
	return WaitObserve(ctx, st, jobID, interval, nil)
}

// WaitObserve is Wait that also hands every polled state of the job to observe (when not
// nil), the finished one included, in the caller's goroutine: e.g. to draw its settled and
// expected counts as a progress bar.
func WaitObserve(ctx context.Context, st store.Store, jobID string, interval time.Duration,
	observe func(*store.HarvestJob)) (*store.HarvestJob, error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		job, err := st.JobGet(ctx, jobID)
		if err != nil {
			return nil, fmt.Errorf("get job: %w", err)
		}
		if observe != nil {
			observe(job)
		}
		if job.Status.Finished() {
			return job, nil
		}
		select {
		case <-ctx.Done():
			return job, ctx.Err()
		case <-t.C:
		}
	}
}
