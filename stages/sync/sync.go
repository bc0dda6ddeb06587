// Package sync is the SYNC stage: it makes the live catalog match a record. create and update
// upsert the dataset row (the slug is made from the title once and never changed by an update);
// delete removes it. The search index follows: an upserted dataset's document is written after
// the row, a deleted dataset's document is removed before the row (so a redelivered delete
// still finds the dataset's id). Records of a job that ended (failed or cancelled) are
// dropped. A store or index failure is returned, so the router retries it and, when retries
// run out, settles the record as errored with the reason (an index failure is never a
// success); an index error that cannot pass on a retry (the engine rejected the document) is
// permanent at once.
package sync

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// slugAttempts bounds the retries with a random suffix after a slug collision.
const slugAttempts = 5

// Handler is the SYNC stage over a store.
type Handler struct {
	store store.Store
	jobs  *store.OpenJobs
	index *search.Batcher // nil: no search index
	orgs  *search.Organizations
}

// New returns the SYNC stage; index is where dataset documents are written (nil for none).
func New(st store.Store, index *search.Batcher) *Handler {
	return &Handler{store: st, jobs: store.NewOpenJobs(st, time.Second), index: index, orgs: search.NewOrganizations(st)}
}

// Handle applies one record (SubjectSync) to the dataset table and settles it.
func (h *Handler) Handle(msg *message.Message) ([]*message.Message, error) {
	ctx := msg.Context()
	var rec harvest.Record
	if err := harvest.Decode(msg, &rec); err != nil {
		return nil, harvest.Permanent(err)
	}
	if open, err := h.jobs.Open(ctx, rec.JobID); !rec.Replay && (err != nil || !open) {
		return nil, err // the job ended (failed or cancelled): its remaining records change nothing
	}
	switch rec.Action {
	case harvest.ActionDelete:
		if h.index != nil {
			ds, err := h.store.DatasetGet(ctx, &store.DatasetGetParams{SourceID: rec.SourceID, Identifier: rec.Identifier})
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, fmt.Errorf("read dataset: %w", err)
			}
			if err == nil {
				if err := indexError(h.index.Delete(ctx, ds.ID)); err != nil {
					return nil, err
				}
			}
		}
		if _, err := h.store.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: rec.SourceID,
			Identifier: rec.Identifier}); err != nil {
			return nil, fmt.Errorf("delete dataset: %w", err)
		}
	case harvest.ActionCreate, harvest.ActionUpdate:
		p := &store.DatasetUpsertParams{SourceID: rec.SourceID, Identifier: rec.Identifier,
			Slug: Slug(title(rec.DCAT(), rec.Identifier)), DCAT: rec.DCAT(), RecordID: rec.RecordID}
		ds, err := h.store.DatasetUpsert(ctx, p)
		for i := 0; errors.Is(err, store.ErrConflict) && i < slugAttempts; i++ {
			p.Slug = suffixed(Slug(title(rec.DCAT(), rec.Identifier)))
			ds, err = h.store.DatasetUpsert(ctx, p)
		}
		if err != nil {
			return nil, fmt.Errorf("upsert dataset: %w", err)
		}
		if h.index != nil {
			org, err := h.orgs.Name(ctx, rec.SourceID)
			if err != nil {
				return nil, fmt.Errorf("organization of the source: %w", err)
			}
			if err := indexError(h.index.Put(ctx, search.FromDataset(ds, org))); err != nil {
				return nil, err
			}
		}
	default:
		return nil, harvest.Permanent(fmt.Errorf("sync: unexpected action %q", rec.Action))
	}
	return harvest.Settle(&harvest.Settled{Kind: harvest.SettledOutcome, JobID: rec.JobID, Key: harvest.IdentifierKey(rec.Identifier),
		Identifier: rec.Identifier, RecordID: rec.RecordID, Outcome: harvest.OutcomeOf(rec.Action),
		Status: harvest.RecordSuccess, Validated: rec.Validated, Errors: rec.Warnings})
}

// indexError wraps an index write's error: permanent when a retry cannot help.
func indexError(err error) error {
	if err == nil {
		return nil
	}
	err = fmt.Errorf("search index: %w", err)
	if !search.Retryable(err) {
		return harvest.Permanent(err)
	}
	return err
}

// title returns the record's title, or fallback when it has no string title.
func title(dcat json.RawMessage, fallback string) string {
	var d struct {
		Title any `json:"title"`
	}
	if json.Unmarshal(dcat, &d) == nil {
		if s, ok := d.Title.(string); ok && s != "" {
			return s
		}
	}
	return fallback
}
