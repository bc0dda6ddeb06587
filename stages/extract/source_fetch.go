package extract

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// sourceFetch returns the fetch configuration of the job's source: h.fetch with the job's
// Accept header (job.Accept; "" keeps the fetch default) and the source's auth header, which
// is read from the store (it never travels in messages) and sent only to the host of the
// source's URL (fetch.AuthHeader). A source that is gone has no auth header. Store errors come
// back wrapped in a *StageError (retry the message).
//
// Every source type's fetches go through it (Handle uses the job's handler, forJob), so the
// per-source accept and auth_header work for data.json documents, WAFs and RDF alike.
func (h *Handler) sourceFetch(ctx context.Context, job *harvest.Job) (fetch.Config, error) {
	fc := h.fetch
	if job.Accept != "" {
		fc.Accept = job.Accept
	}
	src, err := h.store.SourceGet(ctx, job.SourceID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fc, nil
	case err != nil:
		return fc, &StageError{Err: fmt.Errorf("get the source's fetch settings: %w", err)}
	case src.AuthHeader == nil || !IsHTTP(src.URL):
		return fc, nil
	}
	host, err := fetch.SourceHost(src.URL)
	if err != nil {
		return fc, fmt.Errorf("the source URL %q: %w", src.URL, err)
	}
	fc.AuthHeader = &fetch.AuthHeader{Name: src.AuthHeader.Name, Value: src.AuthHeader.Value, Host: host}
	return fc, nil
}

// forJob is a copy of h whose fetches use fc (sourceFetch's), for one job: the handler is
// shared by every job in flight, so its own configuration is never changed.
func (h *Handler) forJob(fc fetch.Config) *Handler {
	c := *h
	c.fetch = fc
	return &c
}
