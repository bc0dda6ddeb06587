package report

import (
	"context"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/notify"
	"github.com/harvester-dev/harvester/store"
)

// QualityRecorder records the metadata quality of a finished job's source, organization and
// catalog, and returns the source's as the job email gives it; nil when the job records none
// (quality/assess.Recorder: assess.RecordJob over the store, for the jobs assess.Records names).
type QualityRecorder interface {
	RecordJob(ctx context.Context, job *store.HarvestJob, src *store.Source) (*notify.Quality, error)
}

// SetQualityRecorder makes the aggregator record the quality of each finished job before the
// job's email, which then says how the score moved and which links broke. Call it before the
// handler runs; without it no quality is recorded at a job's end.
func (h *Handler) SetQualityRecorder(q QualityRecorder) { h.quality = q }

// recordQuality records job's quality and returns it for the email; nil when it is not recorded
// or recording failed (logged: neither the job nor its report depends on it, and the next job
// records its source again).
func (h *Handler) recordQuality(ctx context.Context, job *store.HarvestJob, src *store.Source) *notify.Quality {
	if h.quality == nil {
		return nil
	}
	q, err := h.quality.RecordJob(ctx, job, src)
	if err != nil {
		h.logger.Error("record the job's quality", harvest.MetaJobID, job.ID, "error", err)
		return nil
	}
	return q
}
