package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Params describes the job to start.
type Params struct {
	// URL is the source's location: an http(s) URL or an absolute file path. It keys the source.
	// An http(s) URL is normalised (harvest.NormalizeSourceURL: a portal's URL to its base), and
	// a source whose URL names the same catalog (SourceByURL) is the one used, however its URL
	// was stored.
	URL        string
	Name       string // source name when it is created; default URL
	SourceType harvest.SourceType
	SchemaType harvest.SchemaType
	JobType    harvest.JobType
	// CollectionParentURL is the parent record of a waf-collection source.
	CollectionParentURL string
	// WAFTimeZone, when not empty, replaces the source's WAF time zone (an IANA zone name,
	// already checked with harvest.ParseWAFTimeZone).
	WAFTimeZone string
	// Accept, AuthHeader and Options, when given (not empty, not nil), replace the source's
	// (store.SourceEnsureParams); otherwise it keeps its own.
	Accept     string
	AuthHeader *store.AuthHeader
	Options    map[string]string
	// Organization names the organization the source belongs to: the one with exactly this
	// name, created when there is none (EnsureOrganization). Empty leaves the source's
	// organization as it is.
	Organization string
	// Precedence, when not nil, replaces the source's precedence (already checked with
	// harvest.CheckPrecedence); nil keeps it (0 for a new source).
	Precedence *int
}

// Start creates the job in progress and sends its job message to EXTRACT (the one-shot CLI's
// way; the API, the scheduler and trigger messages Enqueue instead), after attaching the source
// to p.Organization and giving it p.Precedence when those are set. It returns the job as inserted, or ErrJobInProgress, or a
// store or publish error (a job whose message could not be published is failed, TriggerError,
// so it does not block its source).
func (c Control) Start(ctx context.Context, p Params) (*store.HarvestJob, error) {
	st := c.Store
	src, err := EnsureSource(ctx, st, p)
	if err != nil {
		return nil, err
	}
	if p.Organization != "" {
		if src, err = attachOrganization(ctx, st, src, p.Organization); err != nil {
			return nil, err
		}
	}
	if p.Precedence != nil {
		if src, err = setPrecedence(ctx, st, src, *p.Precedence); err != nil {
			return nil, err
		}
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

// EnsureSource returns the source of p.URL, creating it from p when missing, as Start does
// (store.Store.SourceEnsure; the name defaults to the URL). It leaves the organization as it is.
func EnsureSource(ctx context.Context, st store.Store, p Params) (*store.Source, error) {
	if n, err := harvest.NormalizeSourceURL(p.SourceType, p.URL); err == nil { // not for a file path
		p.URL = n
	}
	if n, err := harvest.NormalizeURL(p.CollectionParentURL); err == nil {
		p.CollectionParentURL = n
	}
	name := p.Name
	if name == "" {
		name = p.URL
	}
	switch existing, err := SourceByURL(ctx, st, p.URL); {
	case err == nil:
		p.URL = existing.URL // SourceEnsure finds a source by its URL as stored
	case !errors.Is(err, store.ErrNotFound):
		return nil, fmt.Errorf("find harvest source: %w", err)
	}
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: name, URL: p.URL, SourceType: p.SourceType,
		SchemaType: p.SchemaType, CollectionParentURL: p.CollectionParentURL, WAFTimeZone: p.WAFTimeZone,
		Accept: p.Accept, AuthHeader: p.AuthHeader, Options: p.Options})
	if err != nil {
		return nil, fmt.Errorf("find or create harvest source: %w", err)
	}
	return src, nil
}

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
