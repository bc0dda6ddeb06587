package extract

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// The whole-source skip of an rdf source (FDK's first layer of change detection): a harvest
// job whose parsed graph hashes (dcatap.GraphHash) to what the source's last reusable job saved
// is "not modified", as after a 304: the same rules decide which earlier job may be reused
// (store.JobFetchLatest: the last finished harvest job completed, fetched the same URL with
// the same schema type, and no record of the source is left failed or pending), and the same
// path ends it (notModified: a Listing with NotModifiedSince, COMPARE settles every live
// dataset as unchanged). force_harvest and validate jobs never skip.

// graphNotModifiedSince returns the job whose saved graph hash equals hash when job may skip
// its source as unchanged since that job, or "". Store errors come wrapped in a *stageError.
func (h *Handler) graphNotModifiedSince(ctx context.Context, job *harvest.Job, hash string) (string, error) {
	if job.JobType != harvest.JobHarvest || hash == "" {
		return "", nil
	}
	last, err := h.store.JobFetchLatest(ctx, job.SourceID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", nil
	case err != nil:
		return "", &stageError{fmt.Errorf("look up the last fetch: %w", err)}
	case last.URL != job.URL || last.SchemaType != job.SchemaType || last.GraphHash != hash:
		return "", nil
	}
	return last.JobID, nil
}

// saveGraphHash records the hash of the graph the job parsed with what its fetch saved
// (the validators fetchSource stored, kept), and whether the job skipped its source as not
// modified. Store errors come wrapped in a *stageError.
func (h *Handler) saveGraphHash(ctx context.Context, job *harvest.Job, hash string, notModified bool) error {
	f, err := h.store.JobFetchGet(ctx, job.JobID)
	if errors.Is(err, store.ErrNotFound) { // a file source saves no validators
		f, err = &store.JobFetch{JobID: job.JobID, URL: job.URL, SchemaType: job.SchemaType}, nil
	}
	if err != nil {
		return &stageError{fmt.Errorf("get the job's fetch: %w", err)}
	}
	f.GraphHash, f.NotModified = hash, f.NotModified || notModified
	if err := h.store.JobFetchSet(ctx, f); err != nil {
		return &stageError{fmt.Errorf("save the graph hash: %w", err)}
	}
	return nil
}
