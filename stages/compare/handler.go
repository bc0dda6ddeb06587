package compare

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/harvester-dev/harvester/change"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/settle"
	"github.com/harvester-dev/harvester/store"
)

// Handler is the COMPARE stage over a store. Its records go to TRANSFORM (changed) or are
// settled (unchanged: in the store, SetSettled, or by the aggregator); deletes are published through the publisher as they are found, so a
// source of any size is never held in memory.
type Handler struct {
	store          Store
	pub            harvest.Publisher
	jobs           *store.OpenJobs
	maxDeleteShare float64

	mu    sync.Mutex
	beats map[string]time.Time // job -> last heartbeat sent for records already settled

	self settle.Self // COMPARE settles its unchanged records itself (SetSettled)
}

// Store is what COMPARE needs of the store (store.Store has it all).
type Store interface {
	DatasetCount(ctx context.Context, sourceID string) (int, error)
	DatasetCountHeld(ctx context.Context, sourceID string) (int, error)
	DatasetListUnseen(ctx context.Context, p *store.DatasetListUnseenParams, fn func(identifier string) error) error
	JobGet(ctx context.Context, jobID string) (*store.HarvestJob, error)
	JobHeartbeat(ctx context.Context, jobID string) error
	OutcomeErroredStream(ctx context.Context, jobID string, fn func(key string) error) error
	RecordCompareBatch(ctx context.Context, keys []store.RecordCompareKey) ([]*store.RecordCompare, error)
	RecordDeleteStream(ctx context.Context, jobID string, fn func(identifier string) error) error
	RecordInsert(ctx context.Context, p *store.RecordInsertParams) (*store.HarvestRecord, error)
	RecordInsertBatch(ctx context.Context, ps []*store.RecordInsertParams) error
	OutcomeSettleBatch(ctx context.Context, ps []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error)
}

// store.Store satisfies Store.
var _ Store = store.Store(nil)

// DefaultMaxDeleteShare is the share of a source's live datasets a harvest job may delete.
const DefaultMaxDeleteShare = 0.5

// New returns the COMPARE stage. pub routes by the harvest.MetaSubject metadata.
// maxDeleteShare (0 < share <= 1; 0 means DefaultMaxDeleteShare) is the largest share of a
// source's live datasets that a harvest job may delete (DESIGN rule 1): a listing that would
// delete more fails the job and deletes nothing. clear and force_harvest jobs are not bound.
func New(st Store, pub harvest.Publisher, maxDeleteShare float64) *Handler {
	if maxDeleteShare <= 0 || maxDeleteShare > 1 {
		maxDeleteShare = DefaultMaxDeleteShare
	}
	return &Handler{store: st, pub: pub, jobs: store.NewOpenJobs(st, time.Second), maxDeleteShare: maxDeleteShare,
		beats: map[string]time.Time{}}
}

// Close releases nothing now (each batch does its own database work); it is kept for the
// pipeline's shutdown. Calling it again is safe.
func (h *Handler) Close() {}

// HandleRecord compares one record (SubjectCompare) and returns the message that carries it on:
// HandleBatch of one.
func (h *Handler) HandleRecord(msg *harvest.Message) ([]*harvest.Message, error) {
	r := h.HandleBatch(msg.Context(), []*harvest.Message{msg})[0]
	return r.Out, r.Err
}

// compared is one record of a batch on its way through HandleBatch: decoded once, its hash,
// what the store knows of it, and whether its Result is set already.
type compared struct {
	rec   harvest.Record
	hash  string
	known *store.RecordCompare
	done  bool
	// settled is its unchanged outcome when COMPARE settles it itself (SetSettled), in the
	// batch's statement (settle); nil when its outcome went out as a message.
	settled *harvest.Settled
}

// HandleBatch is COMPARE as the router runs it (harvest.BatchHandler): each record of the batch
// is decoded and hashed at once (harvest.ForEach), the stored records of the whole batch are
// looked up in one query (store.Store.RecordCompareBatch), and the changed records are inserted
// in one statement (RecordInsertBatch; when it fails, one by one, so that a bad record fails
// alone). The unchanged records of the batch are settled in one statement (settle, with
// SetSettled; otherwise one small Settled message each, to the aggregator); a body is not
// encoded again.
func (h *Handler) HandleBatch(ctx context.Context, batch []*harvest.Message) []harvest.Result {
	out := make([]harvest.Result, len(batch))
	items := make([]compared, len(batch))
	harvest.ForEach(len(batch), func(i int) { h.prepare(batch[i], &items[i], &out[i]) })

	var keys []store.RecordCompareKey
	var looked []int
	for i := range items {
		if !items[i].done {
			r := &items[i].rec
			keys = append(keys, store.RecordCompareKey{SourceID: r.SourceID, Identifier: r.Identifier, RecordID: r.RecordID})
			looked = append(looked, i)
		}
	}
	if len(keys) == 0 {
		return out
	}
	known, err := h.store.RecordCompareBatch(ctx, keys)
	if err == nil && len(known) != len(keys) {
		err = fmt.Errorf("%d answers for %d keys", len(known), len(keys))
	}
	if err != nil {
		for _, i := range looked {
			out[i] = harvest.Result{Err: fmt.Errorf("look up stored records: %w", err)}
		}
		return out
	}

	var inserts []*store.RecordInsertParams
	var inserted []int
	for j, i := range looked {
		it := &items[i]
		it.known = known[j]
		if p := h.decideOne(ctx, it, &out[i]); p != nil {
			inserts, inserted = append(inserts, p), append(inserted, i)
		}
	}
	h.settle(ctx, items, out)
	errs := h.insertAll(ctx, inserts)
	for j, i := range inserted {
		switch err := errs[j]; {
		case errors.Is(err, store.ErrJobEnded):
			// the job ended since it was checked: no row is left pending, the record is dropped
		case err != nil:
			out[i].Err = fmt.Errorf("insert harvest_record: %w", err)
		default:
			rec := &items[i].rec
			out[i].Out, out[i].Err = harvest.Next(change.Onward(rec), rec)
		}
	}
	return out
}

// prepare decodes msg into it and hashes its record; a record settled or dropped before its
// lookup gets its Result in res and is done.
func (h *Handler) prepare(msg *harvest.Message, it *compared, res *harvest.Result) {
	rec := &it.rec
	it.done = true
	if ended, err := h.jobs.Admit(msg, rec); err != nil || ended {
		// A record of a job that ended (failed or cancelled) is dropped, unless replayed; one of
		// a job this database does not have (harvest.UnknownJob) is counted, logged and acked.
		res.Err = err
		return
	}
	if !rec.NotDownloaded {
		hash, err := change.RecordHash(rec)
		if err != nil {
			res.Out, res.Err = harvest.Settle(harvest.SettleIdentifier(rec.JobID, rec.Identifier, harvest.OutcomeErrored,
				harvest.RecordError{Type: harvest.TypeCompareError, Message: err.Error(), Severity: harvest.SeverityError}))
			return
		}
		it.hash = hash
	}
	it.done = false
}

// decideOne decides what the looked-up record it does: its Result in res, or the harvest_record
// to insert first (then res is left for HandleBatch).
func (h *Handler) decideOne(ctx context.Context, it *compared, res *harvest.Result) *store.RecordInsertParams {
	rec, known := &it.rec, it.known
	if rec.NotDownloaded {
		if known.Latest == nil { // EXTRACT saw it; gone since (a concurrent clear): nothing to carry
			h.unchanged(it, res, harvest.SettleIdentifier(rec.JobID, rec.Identifier, harvest.OutcomeUnchanged))
		} else {
			h.unchanged(it, res, change.UnchangedOutcome(rec, known.Latest))
		}
		return nil
	}
	action, settled, err := h.decided(ctx, rec, known.Stored)
	if err != nil || settled {
		res.Err = err
		return nil
	}
	switch again, revalidate, rejudge := change.Decide(rec, it.hash, known); {
	case action == "":
		action, rec.Revalidate, rec.Rejudge = again, revalidate, rejudge
	case again == action && known.Stored.SourceHash == it.hash:
		// Listed again while pending (a retry, a re-drive, or EXTRACT's claimed listing inserted
		// it and did not send it on), the same content decided the same way: it keeps the marks
		// of that decision. Other content (the source changed back meanwhile) goes on unmarked,
		// as a plain update writes whatever it now is.
		rec.Revalidate, rec.Rejudge = revalidate, rejudge
	}
	rec.Action, rec.SourceHash = action, it.hash
	switch {
	case rec.JobType == harvest.JobValidate:
		res.Out, res.Err = harvest.Next(change.Onward(rec), rec)
		return nil
	case action == harvest.ActionUnchanged:
		h.unchanged(it, res, change.UnchangedOutcome(rec, known.Latest))
		return nil
	}
	return change.RecordRow(rec)
}

// decided returns the action this job already decided for the record, or "" when it decided
// none; stored is the record's harvest_record (nil when it has none). A job's record is listed
// again after a crash or a re-drive (the same RecordID, a UUIDv5 of job and identifier): the
// first decision stands, as the catalog may since have changed because of it (a created
// dataset is not an update, a synced record not unchanged), and the record goes on to
// TRANSFORM again, whose stages are idempotent. A record whose outcome was already counted
// (its status is no longer pending: the aggregator sets it in the same transaction) has
// nothing left to do: settled is true, and the job's heartbeat says that the re-drive is
// making progress.
func (h *Handler) decided(ctx context.Context, rec *harvest.Record, stored *store.RecordCompareStored) (
	action harvest.Action, settled bool, err error) {
	switch {
	case rec.JobType == harvest.JobValidate:
		return "", false, nil // a validate job writes no harvest_record and changes no dataset
	case stored == nil || stored.JobID != rec.JobID || stored.Action == harvest.ActionDelete:
		return "", false, nil
	case stored.Status != harvest.RecordPending:
		return stored.Action, true, h.beat(ctx, rec.JobID)
	}
	return stored.Action, false, nil
}

// beat records the job's heartbeat, at most once a second per job and process.
func (h *Handler) beat(ctx context.Context, jobID string) error {
	h.mu.Lock()
	last, ok := h.beats[jobID]
	now := time.Now()
	if ok && now.Sub(last) < time.Second {
		h.mu.Unlock()
		return nil
	}
	if len(h.beats) > 1000 {
		clear(h.beats)
	}
	h.beats[jobID] = now
	h.mu.Unlock()
	if err := h.store.JobHeartbeat(ctx, jobID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("job heartbeat: %w", err)
	}
	return nil
}

// notModified settles a job whose document the server reported unchanged (304) since job
// l.NotModifiedSince read it: every key that job counted as errored is errored again, carrying
// its error rows, every other live dataset of the source is unchanged, carrying that job's
// warning rows of its key, and that is the whole
// job (its expected count is their number; nothing is deleted). A live dataset whose record
// that job found invalid (an update that failed validation keeps the dataset) is errored, as a
// listed unchanged invalid record is; counting it twice under one key would leave the job
// waiting for ever. The errored keys are held in memory while the datasets are streamed.
func (h *Handler) notModified(ctx context.Context, l *harvest.Listing) ([]*harvest.Message, error) {
	errored := map[string]bool{}
	err := h.store.OutcomeErroredStream(ctx, l.NotModifiedSince, func(key string) error {
		errored[key] = true
		s := harvest.SettleKey(l.JobID, key, "", harvest.OutcomeErrored)
		s.CarriedFromJobID = l.NotModifiedSince
		return h.publishSettled(s)
	})
	if err != nil {
		return nil, fmt.Errorf("settle the errored records: %w", err)
	}
	n := len(errored)
	// The job has listed nothing, so every live dataset is "unseen".
	err = h.store.DatasetListUnseen(ctx, &store.DatasetListUnseenParams{SourceID: l.SourceID, JobID: l.JobID},
		func(identifier string) error {
			if errored[harvest.IdentifierKey(identifier)] {
				return nil
			}
			n++ // with its warning rows, if that job had any
			s := harvest.SettleIdentifier(l.JobID, identifier, harvest.OutcomeUnchanged)
			s.CarriedFromJobID = l.NotModifiedSince
			return h.publishSettled(s)
		})
	if err != nil {
		return nil, fmt.Errorf("settle the unchanged datasets: %w", err)
	}
	return harvest.Settle(harvest.SettleExpected(l.JobID, n))
}

func (h *Handler) publishSettled(s *harvest.Settled) error {
	m, err := harvest.SettledMessage(s)
	if err != nil {
		return err
	}
	return h.pub.Publish(harvest.SubjectSettled, m)
}

// HandleListing turns a complete listing (SubjectListing) into delete records and returns the
// job's expected count for the aggregator. A validate job deletes nothing: it counts the
// deletes a harvest would make.
func (h *Handler) HandleListing(msg *harvest.Message) ([]*harvest.Message, error) {
	ctx := msg.Context()
	var l harvest.Listing
	if err := harvest.Decode(msg, &l); err != nil {
		return nil, harvest.Permanent(err)
	}
	job, err := h.store.JobGet(ctx, l.JobID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, harvest.UnknownJob(l.JobID) // deleted with its source: counted, logged and acked
	}
	if err != nil {
		return nil, fmt.Errorf("get job: %w", err)
	}
	if job.Status.Finished() {
		return nil, nil // the job ended before its listing was handled: delete nothing
	}
	if l.NotModifiedSince != "" && l.JobType == harvest.JobHarvest {
		return h.notModified(ctx, &l)
	}
	if !l.JobType.WritesCatalog() { // a validate job counts what a harvest would delete
		deletes := 0
		err = h.store.DatasetListUnseen(ctx, &store.DatasetListUnseenParams{SourceID: l.SourceID, JobID: l.JobID},
			func(identifier string) error {
				deletes++
				return h.settleWouldDelete(&l, identifier)
			})
		if err != nil {
			return nil, fmt.Errorf("list deletes: %w", err)
		}
		return harvest.Settle(harvest.SettleExpected(l.JobID, l.Listed+deletes))
	}
	if err := h.tooManyDeletes(ctx, &l); err != nil {
		return nil, err
	}
	// A listing handled again (redelivery, a crash, a re-drive) finds the deletes of the earlier
	// pass as delete records, some of whose datasets are gone already: the deletes are those
	// records plus the unseen live datasets that have none yet, so every pass expects the same
	// count. (The guard counts only live datasets, so a later pass never refuses what an
	// earlier one allowed.)
	err = h.store.DatasetListUnseen(ctx, &store.DatasetListUnseenParams{SourceID: l.SourceID, JobID: l.JobID},
		func(identifier string) error { return h.insertDelete(ctx, &l, identifier) })
	if errors.Is(err, store.ErrJobEnded) {
		return nil, nil // the job ended meanwhile: delete nothing more
	}
	if err != nil {
		return nil, fmt.Errorf("list deletes: %w", err)
	}
	deletes := 0
	err = h.store.RecordDeleteStream(ctx, l.JobID, func(identifier string) error {
		deletes++
		return h.publishDelete(&l, identifier)
	})
	if err != nil {
		return nil, fmt.Errorf("send deletes: %w", err)
	}
	return harvest.Settle(harvest.SettleExpected(l.JobID, l.Listed+deletes))
}

// tooManyDeletes returns the harvest.JobFailure (TypeDeleteGuard) that fails a harvest job whose
// listing would delete more than the allowed share of the source's datasets (live, and held as
// cross-source duplicates); nil when within bounds, or a store error.
func (h *Handler) tooManyDeletes(ctx context.Context, l *harvest.Listing) error {
	if l.JobType != harvest.JobHarvest {
		return nil
	}
	live, err := h.store.DatasetCount(ctx, l.SourceID)
	if err != nil {
		return err
	}
	held, err := h.store.DatasetCountHeld(ctx, l.SourceID) // listed by DatasetListUnseen too
	if live += held; err != nil || live == 0 {
		return err
	}
	unseen := 0
	err = h.store.DatasetListUnseen(ctx, &store.DatasetListUnseenParams{SourceID: l.SourceID, JobID: l.JobID},
		func(string) error { unseen++; return nil })
	if err != nil {
		return fmt.Errorf("count deletes: %w", err)
	}
	if float64(unseen) <= h.maxDeleteShare*float64(live) {
		return nil
	}
	msg := fmt.Sprintf("the listing would delete %d of the source's %d live datasets (%.0f%%), more than the "+
		"%.0f%% a harvest may delete; nothing was deleted. If the source really dropped them, run a "+
		"force_harvest (or a clear job).", unseen, live, 100*float64(unseen)/float64(live), 100*h.maxDeleteShare)
	return harvest.NewJobFailure(l.JobID, harvest.TypeDeleteGuard, msg)
}

func (h *Handler) settleWouldDelete(l *harvest.Listing, identifier string) error {
	return h.publishSettled(harvest.SettleIdentifier(l.JobID, identifier, harvest.OutcomeDeleted))
}

// insertDelete writes the delete record of identifier in the job (idempotent).
func (h *Handler) insertDelete(ctx context.Context, l *harvest.Listing, identifier string) error {
	if _, err := h.store.RecordInsert(ctx, &store.RecordInsertParams{ID: harvest.RecordID(l.JobID, identifier),
		JobID: l.JobID, SourceID: l.SourceID, Identifier: identifier, Action: harvest.ActionDelete}); err != nil {
		return fmt.Errorf("insert delete record: %w", err)
	}
	return nil
}

// publishDelete sends the delete record of identifier to SYNC.
func (h *Handler) publishDelete(l *harvest.Listing, identifier string) error {
	rec := &harvest.Record{JobID: l.JobID, SourceID: l.SourceID, JobType: l.JobType,
		RecordID: harvest.RecordID(l.JobID, identifier), Identifier: identifier, Position: -1,
		Action: harvest.ActionDelete}
	m, err := harvest.RecordMessage(harvest.SubjectSync, rec)
	if err != nil {
		return err
	}
	return h.pub.Publish(harvest.SubjectSync, m)
}
