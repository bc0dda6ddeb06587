package compare

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Handler is the COMPARE stage over a store. Its records go to TRANSFORM (changed) or to the
// aggregator (unchanged); deletes are published through the publisher as they are found, so a
// source of any size is never held in memory.
type Handler struct {
	store store.Store
	pub   message.Publisher
	jobs  *openJobs
}

// New returns the COMPARE stage. pub routes by the harvest.MetaSubject metadata.
func New(st store.Store, pub message.Publisher) *Handler {
	return &Handler{store: st, pub: pub, jobs: newOpenJobs(st, time.Second)}
}

// HandleRecord compares one record (SubjectCompare) and returns the message that carries it on.
func (h *Handler) HandleRecord(msg *message.Message) ([]*message.Message, error) {
	ctx := msg.Context()
	var rec harvest.Record
	if err := harvest.Decode(msg, &rec); err != nil {
		return nil, harvest.Permanent(err)
	}
	if open, err := h.jobs.open(ctx, rec.JobID); err != nil || !open {
		return nil, err // a record of a job that ended (failed or cancelled) is dropped
	}
	hash, err := SourceHash(rec.Body)
	if err != nil {
		return harvest.Settle(&harvest.Settled{Kind: harvest.SettledOutcome, JobID: rec.JobID, Key: harvest.IdentifierKey(rec.Identifier),
			Identifier: rec.Identifier, Outcome: harvest.OutcomeErrored,
			Errors: []harvest.RecordError{{Type: "CompareError", Message: err.Error(), Severity: harvest.SeverityError}}})
	}
	action, err := h.action(ctx, &rec, hash)
	if err != nil {
		return nil, err
	}
	rec.Action, rec.SourceHash = action, hash
	if rec.JobType == harvest.JobValidate {
		return harvest.Next(harvest.SubjectTransform, &rec)
	}
	if action == harvest.ActionUnchanged {
		return harvest.Settle(&harvest.Settled{Kind: harvest.SettledOutcome, JobID: rec.JobID, Key: harvest.IdentifierKey(rec.Identifier),
			Identifier: rec.Identifier, Outcome: harvest.OutcomeUnchanged})
	}
	if _, err := h.store.RecordInsert(ctx, &store.RecordInsertParams{ID: rec.RecordID, JobID: rec.JobID,
		SourceID: rec.SourceID, Identifier: rec.Identifier, Action: action, SourceHash: hash,
		SourceRaw: string(rec.Body)}); err != nil {
		return nil, fmt.Errorf("insert harvest_record: %w", err)
	}
	return harvest.Next(harvest.SubjectTransform, &rec)
}

func (h *Handler) action(ctx context.Context, rec *harvest.Record, hash string) (harvest.Action, error) {
	latest, err := h.store.RecordLatest(ctx, &store.RecordLatestParams{SourceID: rec.SourceID, Identifier: rec.Identifier})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return harvest.ActionCreate, nil
	case err != nil:
		return "", fmt.Errorf("look up stored record: %w", err)
	case latest.Action == harvest.ActionDelete:
		return harvest.ActionCreate, nil
	case rec.JobType == harvest.JobForceHarvest || latest.SourceHash != hash:
		return harvest.ActionUpdate, nil
	}
	return harvest.ActionUnchanged, nil
}

// HandleListing turns a complete listing (SubjectListing) into delete records and returns the
// job's expected count for the aggregator. A validate job deletes nothing.
func (h *Handler) HandleListing(msg *message.Message) ([]*message.Message, error) {
	ctx := msg.Context()
	var l harvest.Listing
	if err := harvest.Decode(msg, &l); err != nil {
		return nil, harvest.Permanent(err)
	}
	job, err := h.store.JobGet(ctx, l.JobID)
	if err != nil {
		return nil, fmt.Errorf("get job: %w", err)
	}
	if job.Status.Finished() {
		return nil, nil // the job ended before its listing was handled: delete nothing
	}
	deletes := 0
	if l.JobType.WritesCatalog() {
		err = h.store.DatasetListUnseen(ctx, &store.DatasetListUnseenParams{SourceID: l.SourceID, JobID: l.JobID},
			func(identifier string) error {
				deletes++
				return h.publishDelete(ctx, &l, identifier)
			})
		if err != nil {
			return nil, fmt.Errorf("list deletes: %w", err)
		}
	}
	return harvest.Settle(&harvest.Settled{Kind: harvest.SettledExpected, JobID: l.JobID, Expected: l.Listed + deletes})
}

func (h *Handler) publishDelete(ctx context.Context, l *harvest.Listing, identifier string) error {
	rec := &harvest.Record{JobID: l.JobID, SourceID: l.SourceID, JobType: l.JobType,
		RecordID: harvest.RecordID(l.JobID, identifier), Identifier: identifier, Position: -1,
		Action: harvest.ActionDelete}
	if _, err := h.store.RecordInsert(ctx, &store.RecordInsertParams{ID: rec.RecordID, JobID: rec.JobID,
		SourceID: rec.SourceID, Identifier: identifier, Action: harvest.ActionDelete}); err != nil {
		return fmt.Errorf("insert delete record: %w", err)
	}
	m, err := harvest.RecordMessage(harvest.SubjectSync, rec)
	if err != nil {
		return err
	}
	return h.pub.Publish(harvest.SubjectSync, m)
}
