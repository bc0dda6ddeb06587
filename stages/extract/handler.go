package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Handler is the EXTRACT stage.
type Handler struct {
	store store.Store
	pub   message.Publisher
	fetch FetchConfig
}

// New returns the EXTRACT stage. pub routes by harvest.MetaSubject; records are published as
// they are read.
func New(st store.Store, pub message.Publisher, fc FetchConfig) *Handler {
	return &Handler{store: st, pub: pub, fetch: fc.WithDefaults()}
}

// Handle runs the listing of one job (SubjectExtract). It returns an error only for failures
// that a retry may cure (store or bus); source problems fail the job instead.
func (h *Handler) Handle(msg *message.Message) error {
	ctx := msg.Context()
	var job harvest.Job
	if err := harvest.Decode(msg, &job); err != nil {
		return harvest.Permanent(err)
	}
	stored, err := h.store.JobGet(ctx, job.JobID)
	if err != nil {
		return fmt.Errorf("get job: %w", err)
	}
	if stored.Status.Finished() {
		return nil // redelivered after the job ended
	}
	if job.JobType == harvest.JobClear {
		return h.publish(harvest.SubjectListing, &harvest.Listing{V: harvest.Version, JobID: job.JobID,
			SourceID: job.SourceID, JobType: job.JobType}, job.JobID)
	}
	f, cleanup, err := h.open(ctx, job.URL)
	if err != nil {
		return h.fail(ctx, &job, "ExtractError", err)
	}
	defer cleanup()
	if err := WalkCatalog(f, func(int, json.RawMessage) error { return nil }); err != nil {
		return h.fail(ctx, &job, "ParseError", fmt.Errorf("read catalog %s: %w", job.URL, err))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	l := &lister{h: h, ctx: ctx, job: &job, seen: map[string]int{}}
	if err := WalkCatalog(f, l.entry); err != nil {
		var perr *ParseError
		if errors.As(err, &perr) { // the file changed under us; nothing can be trusted
			return h.fail(ctx, &job, "ParseError", fmt.Errorf("read catalog %s: %w", job.URL, err))
		}
		return err
	}
	return h.publish(harvest.SubjectListing, &harvest.Listing{V: harvest.Version, JobID: job.JobID,
		SourceID: job.SourceID, JobType: job.JobType, Listed: l.listed}, job.JobID)
}

// open returns the source document: a download for http(s) URLs, the file itself for an
// absolute path.
func (h *Handler) open(ctx context.Context, url string) (*os.File, func(), error) {
	switch {
	case strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://"):
		f, err := Fetch(ctx, h.fetch, url)
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close(); os.Remove(f.Name()) }, nil
	case filepath.IsAbs(url):
		f, err := os.Open(url)
		if err != nil {
			return nil, nil, fmt.Errorf("open source file: %w", err)
		}
		return f, func() { f.Close() }, nil
	}
	return nil, nil, fmt.Errorf("unsupported source location %q: want an http(s) URL or an absolute file path", url)
}

// fail ends the job in error with a job error row and asks the aggregator to report it.
func (h *Handler) fail(ctx context.Context, job *harvest.Job, kind string, cause error) error {
	if _, err := h.store.JobFail(ctx, &store.JobFailParams{JobID: job.JobID, Type: kind, Message: cause.Error()}); err != nil {
		return fmt.Errorf("fail job: %w", err)
	}
	return h.publish(harvest.SubjectSettled, &harvest.Settled{V: harvest.Version, Kind: harvest.SettledFailed,
		JobID: job.JobID}, job.JobID)
}

func (h *Handler) publish(subject string, v any, jobID string) error {
	m, err := harvest.NewMessage(subject, v, harvest.MetaJobID, jobID)
	if err != nil {
		return err
	}
	return h.pub.Publish(subject, m)
}

// lister sends one job's entries on, in listing order.
type lister struct {
	h      *Handler
	ctx    context.Context
	job    *harvest.Job
	seen   map[string]int // identifier -> position of its first record
	listed int
}

func (l *lister) entry(pos int, raw json.RawMessage) error {
	l.listed++
	e := Identify(pos, raw)
	if e.Err != nil {
		return l.settleError(&e, "MissingIdentifier", e.Err.Error())
	}
	if first, dup := l.seen[e.Identifier]; dup {
		return l.settleError(&e, "DuplicateIdentifier", fmt.Sprintf(
			"dataset #%d repeats identifier %q of dataset #%d in this catalog; the first one is kept", pos+1, e.Identifier, first+1))
	}
	l.seen[e.Identifier] = pos
	if err := l.h.store.JobIdentifierAdd(l.ctx, &store.JobIdentifierAddParams{JobID: l.job.JobID,
		Identifier: e.Identifier}); err != nil {
		return fmt.Errorf("record seen identifier: %w", err)
	}
	rec := &harvest.Record{JobID: l.job.JobID, SourceID: l.job.SourceID, JobType: l.job.JobType,
		SchemaType: l.job.SchemaType, RecordID: harvest.RecordID(l.job.JobID, e.Identifier),
		Identifier: e.Identifier, Position: pos, Body: harvest.RawText(e.Raw)}
	m, err := harvest.RecordMessage(harvest.SubjectCompare, rec)
	if err != nil {
		return err
	}
	return l.h.pub.Publish(harvest.SubjectCompare, m)
}

func (l *lister) settleError(e *Entry, kind, reason string) error {
	m, err := harvest.SettledMessage(&harvest.Settled{Kind: harvest.SettledOutcome, JobID: l.job.JobID,
		Key: harvest.PositionKey(e.Position), Identifier: e.Identifier, Outcome: harvest.OutcomeErrored,
		Errors: []harvest.RecordError{{Type: kind, Message: reason, Severity: harvest.SeverityError}}})
	if err != nil {
		return err
	}
	return l.h.pub.Publish(harvest.SubjectSettled, m)
}
