package report

import (
	"context"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/notify"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/store"
)

// QualityRecorder records the metadata quality of a finished job's source, organization and
// catalog (assess.Recorder: assess.RecordJob over the store).
type QualityRecorder interface {
	RecordJob(ctx context.Context, job *store.HarvestJob, src *store.Source) (*assess.Recorded, error)
}

// SetQualityRecorder makes the aggregator record the quality of each job that ends complete
// and can change the catalog (assess.Records), before the job's email, which then says how the
// score moved and which links broke. Call it before the handler runs; without it no quality is
// recorded at a job's end.
func (h *Handler) SetQualityRecorder(q QualityRecorder) { h.quality = q }

// recordQuality records job's quality and returns it for the email; nil when it is not recorded
// or recording failed (logged: neither the job nor its report depends on it, and the next job
// records its source again).
func (h *Handler) recordQuality(ctx context.Context, job *store.HarvestJob, src *store.Source) *notify.Quality {
	if h.quality == nil || !assess.Records(job) {
		return nil
	}
	rec, err := h.quality.RecordJob(ctx, job, src)
	if err != nil {
		h.logger.Error("record the job's quality", harvest.MetaJobID, job.ID, "error", err)
		return nil
	}
	q := &notify.Quality{Score: rec.Source.Mean, Rating: string(rec.Source.Rating), Datasets: rec.Source.Datasets,
		LinksBroken: rec.Source.Links.Broken, NewlyBrokenCount: len(rec.NewlyBroken)}
	if rec.Previous != nil {
		p := rec.Previous.Mean
		q.Previous, q.PreviousRating = &p, string(rec.Previous.Rating)
	}
	for _, b := range rec.NewlyBroken[:min(len(rec.NewlyBroken), notify.MaxDuplicateLines)] {
		q.NewlyBroken = append(q.NewlyBroken, notify.BrokenLink{URL: b.URL, Status: b.Status, Error: string(b.Error),
			Datasets: len(b.Datasets)})
	}
	return q
}
