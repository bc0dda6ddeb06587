package report

import (
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// SharedKeyReleaser ends the cross-source duplicate pairs of a source matched by a landingPage
// or downloadURL set that is no longer unique within both sources, makes their held datasets
// live again (indexed) and returns those datasets (catalogsync.Handler.ReleaseShared).
type SharedKeyReleaser interface {
	ReleaseShared(ctx context.Context, jobID, sourceID string) ([]*store.DuplicateCandidate, error)
}

// SetSharedKeyReleaser makes the aggregator settle each job's pairs by a shared key when the job
// ends (releaseShared). Call it before the handler runs; without it no pair is released there.
func (h *Handler) SetSharedKeyReleaser(r SharedKeyReleaser) { h.releaser = r }

// releaseShared settles the cross-source duplicate pairs of the ended job's source: a pair
// matched by a landingPage or downloadURL set that another dataset of either source shares (the
// job wrote it after the pair was found) ends, and its held dataset is live again. When any
// ended, it writes one job-level CrossSourceDuplicateReleased row saying how many, with the
// first as an example; the job's status does not change. A failure is logged: the next job of
// either source settles the same pairs again. A job that ended in error is left alone (its last
// job-level row stays the reason it failed); the source's next complete job settles its pairs.
// When pairs ended, the job's held count is counted again (store.JobCountHeld) and job updated.
func (h *Handler) releaseShared(ctx context.Context, job *store.HarvestJob) {
	if h.releaser == nil || job.Status != harvest.JobComplete {
		return
	}
	ended, err := h.releaser.ReleaseShared(ctx, job.ID, job.SourceID)
	if err != nil {
		h.logger.Error("release cross-source duplicates by a shared key", harvest.MetaJobID, job.ID, "error", err)
	}
	if len(ended) == 0 {
		return
	}
	if recounted, err := h.store.JobCountHeld(ctx, job.ID); err != nil {
		h.logger.Error("count the source's held datasets again", harvest.MetaJobID, job.ID, "error", err)
	} else {
		*job = *recounted
	}
	e := ended[0]
	msg := fmt.Sprintf("%d cross-source duplicate pair(s) ended: each was matched by a landingPage or downloadURL set "+
		"that other datasets of the same source share, which identifies no dataset; their held datasets are live again "+
		"(e.g. %q of source %q, %s %q)", len(ended), e.Slug, e.SourceName, e.Match, e.Key)
	if err := h.store.JobErrorAdd(ctx, &store.JobErrorAddParams{JobID: job.ID,
		Type: harvest.TypeCrossSourceDuplicateReleased, Message: msg}); err != nil {
		h.logger.Error("note released cross-source duplicates", harvest.MetaJobID, job.ID, "error", err)
	}
}
