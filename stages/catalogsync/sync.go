// Package catalogsync is the SYNC stage: it makes the live catalog match a record. create and update
// upsert the dataset row (the slug is made from the title once and never changed by an update);
// delete removes it. The search index follows: an upserted dataset's document is written after
// the row, a deleted dataset's document is removed before the row (so a redelivered delete
// still finds the dataset's id). SYNC writes only while the record's job is in progress: the
// store checks it in the statement that writes (store.ErrJobEnded), so nothing of a job that
// ended (cancelled, failed) lands after its end, and such a record settles as errored with a
// CancelledJob row (refused; store.Store.JobFail has already counted it the same way, so the
// aggregator keeps JobFail's outcome). A replayed record of a finished job is written. A store
// or index failure is returned, so the router retries it and, when retries
// run out, settles the record as errored with the reason (an index failure is never a
// success); an index error that cannot pass on a retry (the engine rejected the document) is
// permanent at once.
//
// Cross-source duplicates (duplicate.go): a dataset written is looked up among the live datasets
// of other sources by its identifier, DCAT-US landingPage and distribution downloadURL set
// (DuplicateKeys). Of a pair, the dataset whose source has the higher precedence
// (store.Source.Precedence) stays live; at equal precedence, the one whose source first
// published a dataset with the shared key (kept by the store, whatever was deleted since). The other one is
// held (store.Dataset.DuplicateOf): its record succeeds with a CrossSourceDuplicate warning, its
// row stays, its search document goes. A delete makes the datasets held against the deleted one
// live again at once (DatasetDuplicateRelease), each judged anew.
package catalogsync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/settle"
	"github.com/harvester-dev/harvester/store"
)

// slugAttempts bounds the retries with a random suffix after a slug collision.
const slugAttempts = 5

// Handler is the SYNC stage over a store. The upserts of a batch (HandleBatch) go to the store
// together, in one store.DatasetUpsertBatch statement.
type Handler struct {
	store Store
	jobs  *store.OpenJobs
	index *search.Batcher // nil: no search index
	orgs  *search.Organizations
	keys  keyLocks // judge's, per duplicate key
	// linkChecks: each dataset added or changed with distribution URLs is sent on to CHECK too
	// (SetLinkChecks).
	linkChecks bool
	self       settle.Self // SYNC settles its records' outcomes itself (SetSettled)
}

// upserted is a dataset SYNC wrote and whether it may have a cross-source duplicate
// (store.Store.DatasetDuplicatePossible): only then does judge look for one.
type upserted struct {
	ds       *store.Dataset
	possible bool
}

// Store is what SYNC needs of the store (store.Store has it all): the dataset writes, and the
// job, source and organization reads behind dropping an ended job's records and naming a
// document's organization, and the aggregator's settle statement (SetSettled).
type Store interface {
	DatasetDelete(ctx context.Context, p *store.DatasetDeleteParams) (bool, error)
	DatasetDuplicateFind(ctx context.Context, p *store.DatasetDuplicateFindParams) ([]*store.DuplicateCandidate, error)
	DatasetDuplicateKeep(ctx context.Context, p *store.DatasetDuplicateKeepParams) ([]*store.DuplicateCandidate, error)
	DatasetDuplicatePossible(ctx context.Context, ids []string) (map[string]bool, error)
	DatasetDuplicateRelease(ctx context.Context, limit int) ([]*store.Dataset, error)
	DatasetDuplicateUnpair(ctx context.Context, p *store.DatasetDuplicateUnpairParams) ([]*store.DuplicateCandidate, error)
	DatasetDuplicateUnpairStale(ctx context.Context, keptID string) (int, error)
	DatasetHold(ctx context.Context, p *store.DatasetHoldParams) (bool, error)
	DatasetGet(ctx context.Context, p *store.DatasetGetParams) (*store.Dataset, error)
	DatasetUpsert(ctx context.Context, p *store.DatasetUpsertParams) (*store.Dataset, error)
	DatasetUpsertBatch(ctx context.Context, ps []*store.DatasetUpsertParams) ([]*store.Dataset, error)
	JobGet(ctx context.Context, jobID string) (*store.HarvestJob, error)
	OrganizationGet(ctx context.Context, id string) (*store.Organization, error)
	OutcomeSettleBatch(ctx context.Context, ps []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error)
	SourceGet(ctx context.Context, sourceID string) (*store.Source, error)
}

// store.Store satisfies Store.
var _ Store = store.Store(nil)

// New returns the SYNC stage; index is where dataset documents are written (nil for none).
func New(st Store, index *search.Batcher) *Handler {
	h := &Handler{store: st, jobs: store.NewOpenJobs(st, time.Second), index: index, orgs: search.NewOrganizations(st)}
	return h
}

// SetLinkChecks makes SYNC send CHECK (harvest.SubjectCheck) a LinkCheck with the distribution
// URLs (quality.LinkURLs) of each dataset it adds or changes, beside the record's settled
// outcome. Call it before the handler runs.
func (h *Handler) SetLinkChecks(on bool) { h.linkChecks = on }

// Close releases nothing now (each batch writes its own datasets); it is kept for the
// pipeline's shutdown.
func (h *Handler) Close() {}

// upsertBatch writes a batch of datasets (of one, too) in one statement; a new dataset whose
// slug is taken takes a suffixed one in that statement (store.DatasetUpsertParams.AltSlug), so a
// catalog whose titles repeat, or are cut to the same MaxSlugLen bytes, still goes in whole
// batches. When the
// batch fails (a slug taken by a batch committed meanwhile, one dataset twice, a bad record),
// each dataset is written alone, so that a slug collision gets a new slug and a bad record
// fails only its own message.
func (h *Handler) upsertBatch(ctx context.Context, ps []*store.DatasetUpsertParams) ([]upserted, []error, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	slugs := make(map[string]bool, len(ps))
	batch := make([]*store.DatasetUpsertParams, len(ps))
	for i, p := range ps { // titles repeat in catalogs: a new dataset's slug must be unique
		q := *p
		if slugs[p.Slug] {
			q.Slug = suffixed(p.Slug)
		}
		q.AltSlug = suffixed(q.Slug) // when another dataset has the slug already
		batch[i] = &q
		slugs[q.Slug] = true
	}
	out, errs := make([]upserted, len(ps)), make([]error, len(ps))
	if ds, err := h.store.DatasetUpsertBatch(ctx, batch); err == nil {
		ids := make([]string, len(ds))
		for i, d := range ds {
			ids[i] = d.ID
		}
		// After the batch committed, as DatasetDuplicateFind would be: of two datasets sharing a key
		// written at once, the later one sees the other. An error only costs a Find each.
		possible, err := h.store.DatasetDuplicatePossible(ctx, ids)
		for i, d := range ds {
			out[i] = upserted{ds: d, possible: err != nil || possible[d.ID]}
		}
		return out, nil, nil
	}
	for i, p := range ps {
		out[i].ds, errs[i] = h.upsertOne(ctx, p)
		out[i].possible = true
	}
	return out, errs, nil
}

// upsertOne writes one dataset, with a new random slug suffix when its slug is taken.
func (h *Handler) upsertOne(ctx context.Context, p *store.DatasetUpsertParams) (*store.Dataset, error) {
	ds, err := h.store.DatasetUpsert(ctx, p)
	for i := 0; errors.Is(err, store.ErrConflict) && i < slugAttempts; i++ {
		q := *p
		q.Slug = suffixed(p.Slug)
		ds, err = h.store.DatasetUpsert(ctx, &q)
	}
	return ds, err
}

// Handle applies one record (SubjectSync) to the dataset table and settles it: HandleBatch of
// one.
func (h *Handler) Handle(msg *harvest.Message) ([]*harvest.Message, error) {
	r := h.HandleBatch(msg.Context(), []*harvest.Message{msg})[0]
	return r.Out, r.Err
}

// synced is one record of a batch on its way through HandleBatch: decoded once, and for a
// create or update, its dataset's upsert and what it gave.
type synced struct {
	rec    harvest.Record
	upsert *store.DatasetUpsertParams
	u      upserted
	err    error // the upsert's
	done   bool  // its Result is set
	// settled is its outcome when SYNC settles it itself (SetSettled), in the batch's statement
	// (settle); nil when its outcome went out as a message.
	settled *harvest.Settled
}

// HandleBatch is SYNC as the router runs it (harvest.BatchHandler): each record of the batch is
// decoded at once (harvest.ForEach), the datasets of the batch's creates and updates are written
// in one statement (upsertBatch: store.Store.DatasetUpsertBatch, whose check that each record's
// job is still in progress refuses an ended job's records, store.ErrJobEnded; one by one when it
// fails, so that a bad record fails alone), then each record's cross-source duplicates are
// judged, its search document written and its outcome settled, all at once again. Deletes are
// made one by one.
func (h *Handler) HandleBatch(ctx context.Context, batch []*harvest.Message) []harvest.Result {
	out := make([]harvest.Result, len(batch))
	items := make([]synced, len(batch))
	harvest.ForEach(len(batch), func(i int) { h.prepare(batch[i], &items[i], &out[i]) })
	var ps []*store.DatasetUpsertParams
	var at []int
	for i := range items {
		if !items[i].done && items[i].upsert != nil {
			ps, at = append(ps, items[i].upsert), append(at, i)
		}
	}
	for lo := 0; lo < len(ps); lo += upsertBatchMax {
		hi := min(lo+upsertBatchMax, len(ps))
		us, errs, err := h.upsertBatch(ctx, ps[lo:hi])
		for j, i := range at[lo:hi] {
			switch {
			case err != nil:
				items[i].err = err
			case errs != nil && errs[j] != nil:
				items[i].err = errs[j]
			default:
				items[i].u = us[j]
			}
		}
	}
	harvest.ForEach(len(batch), func(i int) {
		if !items[i].done {
			out[i].Out, out[i].Err = h.apply(batch[i].Context(), &items[i])
		}
	})
	h.settle(ctx, items, out)
	return out
}

// upsertBatchMax is the most datasets one upsert statement writes.
const upsertBatchMax = 500

// prepare decodes msg into it and, for a create or update, makes its dataset's upsert; a
// record settled or dropped at once gets its Result in res and is done.
func (h *Handler) prepare(msg *harvest.Message, it *synced, res *harvest.Result) {
	rec := &it.rec
	it.done = true
	ended, err := h.jobs.Admit(msg, rec)
	if err != nil { // one of a job this database does not have (harvest.UnknownJob) is counted, logged and acked
		res.Err = err
		return
	}
	if ended { // the job ended (failed or cancelled): its remaining records change nothing
		res.Out, res.Err = refused(rec)
		return
	}
	switch rec.Action {
	case harvest.ActionDelete:
	case harvest.ActionCreate, harvest.ActionUpdate:
		it.upsert = upsertParams(rec)
	default:
		res.Err = harvest.Permanent(fmt.Errorf("sync: unexpected action %q", rec.Action))
		return
	}
	it.done = false
}

// apply finishes a record: its delete, or what follows its dataset's upsert, then its settled
// outcome (and its link check). The outcome is left on it (settled) for the batch's statement
// when SYNC settles itself and the record is not a replay.
func (h *Handler) apply(ctx context.Context, it *synced) ([]*harvest.Message, error) {
	rec := &it.rec
	warnings := rec.Warnings
	switch rec.Action {
	case harvest.ActionDelete:
		if err := h.delete(ctx, rec); errors.Is(err, store.ErrJobEnded) {
			return refused(rec)
		} else if err != nil {
			return nil, err
		}
	default:
		w, err := h.upserted(ctx, rec, it.u, it.err)
		if errors.Is(err, store.ErrJobEnded) {
			return refused(rec)
		}
		if err != nil {
			return nil, err
		}
		if w != nil {
			warnings = append(slices.Clip(warnings), *w)
		}
	}
	outcome := harvest.OutcomeOf(rec.Action)
	if rec.Rejudge { // unchanged: sent on only to be judged again (COMPARE)
		outcome = harvest.OutcomeUnchanged
	}
	s := harvest.SettleRecord(rec, outcome, warnings...)
	s.Status, s.Validated, s.Transformed = harvest.RecordSuccess, rec.Validated, rec.Transformed
	var out []*harvest.Message
	var err error
	if h.self.Takes(rec) {
		it.settled = s
	} else {
		out, err = harvest.Settle(s)
	}
	if err != nil || !h.linkChecks || outcome == harvest.OutcomeUnchanged || rec.Action == harvest.ActionDelete {
		return out, err
	}
	return withLinkCheck(out, rec)
}

// withLinkCheck adds to out the LinkCheck of rec's dataset, when it has distribution URLs.
func withLinkCheck(out []*harvest.Message, rec *harvest.Record) ([]*harvest.Message, error) {
	urls := quality.LinkURLs(rec.DCAT())
	if len(urls) == 0 {
		return out, nil
	}
	m, err := harvest.LinkCheckMessage(&harvest.LinkCheck{JobID: rec.JobID, SourceID: rec.SourceID, URLs: urls})
	if err != nil {
		return nil, err
	}
	return append(out, m), nil
}

// refused settles rec, which SYNC did not write because its job has ended, as errored with a
// CancelledJob row.
func refused(rec *harvest.Record) ([]*harvest.Message, error) {
	s := harvest.SettleRecord(rec, harvest.OutcomeErrored, harvest.RecordError{Type: harvest.TypeCancelledJob,
		Severity: harvest.SeverityError, Message: "the job ended before this record reached the catalog; " +
			"the next harvest tries it again"})
	s.Status, s.Validated, s.Transformed = harvest.RecordFailed, rec.Validated, rec.Transformed
	return harvest.Settle(s)
}

// writeJob is the job whose status a write of rec's dataset is checked against
// (store.DatasetUpsertParams.JobID): none for a replayed record, whose job has finished.
func writeJob(rec *harvest.Record) string {
	if rec.Replay {
		return ""
	}
	return rec.JobID
}

// delete removes the record's dataset and its search document (the document first, so that a
// redelivered delete still finds the dataset's id), then judges again the datasets that were
// held against it (release): one of them becomes live at once. A delete the store refuses
// because the job ended in between (store.ErrJobEnded) writes the document back.
func (h *Handler) delete(ctx context.Context, rec *harvest.Record) error {
	if h.index != nil {
		ds, err := h.store.DatasetGet(ctx, &store.DatasetGetParams{SourceID: rec.SourceID, Identifier: rec.Identifier})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("read dataset: %w", err)
		}
		if err == nil {
			if err := indexError(h.index.Delete(ctx, ds.ID)); err != nil {
				return err
			}
		}
	}
	_, err := h.store.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: rec.SourceID,
		Identifier: rec.Identifier, JobID: writeJob(rec)})
	if errors.Is(err, store.ErrJobEnded) { // the job ended since: the dataset stays, and so does its document
		return errors.Join(err, h.reindex(ctx, rec.SourceID, rec.Identifier))
	}
	if err != nil {
		return fmt.Errorf("delete dataset: %w", err)
	}
	return h.release(ctx, rec.JobID, nil)
}

// upsertParams is the upsert of the record's dataset.
func upsertParams(rec *harvest.Record) *store.DatasetUpsertParams {
	dcat := rec.DCAT()
	if rec.SchemaType.IsDCATUS3() && rec.IsPartOf != "" {
		dcat = dcatus.WithIsPartOf(dcat, rec.IsPartOf)
	}
	f := fieldsOf(dcat)
	title := f.title
	if title == "" {
		title = rec.Identifier
	}
	return &store.DatasetUpsertParams{SourceID: rec.SourceID, Identifier: rec.Identifier,
		Slug: Slug(title), DCAT: dcat, RecordID: rec.RecordID, RecordType: rec.RecordType,
		LandingPage: f.landingPage, DownloadURLsSHA: f.downloadURLsSHA, JobID: writeJob(rec)}
}

// upserted follows the upsert of the record's dataset (u, or its error err): it applies the
// cross-source duplicate rule (judge) and writes the search document when the dataset is live.
// It returns the record's CrossSourceDuplicate warning, or nil.
func (h *Handler) upserted(ctx context.Context, rec *harvest.Record, u upserted, err error) (*harvest.RecordError, error) {
	if err != nil {
		return nil, fmt.Errorf("upsert dataset: %w", err)
	}
	ds := u.ds
	if !u.possible && ds.DuplicateOf == "" { // no other source shares a key: judge would find none
		return nil, h.put(ctx, ds)
	}
	var later []*store.Dataset // released by judging ds: judged once ds's key locks are let go
	unlock := h.keys.lock(ds)
	w, live, err := h.judge(ctx, rec.JobID, ds, &later)
	if err == nil && live {
		err = h.put(ctx, ds)
	}
	unlock()
	if err != nil {
		return w, err
	}
	return w, h.rejudge(ctx, rec.JobID, later)
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
