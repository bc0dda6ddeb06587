package report

import (
	"cmp"
	"context"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/notify"
	"github.com/harvester-dev/harvester/store"
)

// newDuplicates puts in job the cross-source duplicates it found first (how many, and the
// first notify.MaxDuplicateLines of them, each seen from the job's source sourceID), for the
// report email. A store error is logged and leaves the email without them: the email does not
// wait on it.
func (h *Handler) newDuplicates(ctx context.Context, job *notify.Job, sourceID string) {
	rows, total, err := h.store.CrossSourceDuplicateList(ctx, &store.CrossSourceDuplicateListParams{JobID: job.ID,
		PageParams: store.PageParams{Limit: notify.MaxDuplicateLines}})
	if err != nil {
		h.logger.Error("list the job's new cross-source duplicates for its email", harvest.MetaJobID, job.ID, "error", err)
		return
	}
	job.NewDuplicates = total
	for _, d := range rows {
		live, other := true, d.Held
		if d.Kept.SourceID != sourceID {
			live, other = false, d.Kept
		}
		job.Duplicates = append(job.Duplicates, notify.Duplicate{Match: d.Match, Key: d.Key, OtherSource: other.SourceName,
			OtherDataset: cmp.Or(other.DatasetSlug, other.Identifier), Live: live})
	}
}

// heldDuplicates puts in job the first notify.MaxDuplicateLines datasets of the source sourceID
// that are held as cross-source duplicates, each with the live dataset that holds it, when the
// job counted any (Counts.Held), for the report email. A store error is logged and leaves the
// email without them.
func (h *Handler) heldDuplicates(ctx context.Context, job *notify.Job, sourceID string) {
	if job.Counts.Held == 0 {
		return
	}
	rows, _, err := h.store.CrossSourceDuplicateList(ctx, &store.CrossSourceDuplicateListParams{HeldSourceID: sourceID,
		PageParams: store.PageParams{Limit: notify.MaxDuplicateLines}})
	if err != nil {
		h.logger.Error("list the source's held datasets for its email", harvest.MetaJobID, job.ID, "error", err)
		return
	}
	for _, d := range rows {
		job.Held = append(job.Held, notify.Duplicate{Match: d.Match, Key: d.Key, Dataset: d.Held.Identifier,
			OtherSource: d.Kept.SourceName, OtherDataset: cmp.Or(d.Kept.DatasetSlug, d.Kept.Identifier)})
	}
}
