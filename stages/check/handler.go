package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Store is what the CHECK stage reads and writes; quality/assess.StageStore implements it over
// store.Store.
type Store interface {
	// LinkCheckedAt returns when each of urls that has a stored check was last checked.
	LinkCheckedAt(ctx context.Context, urls []string) (map[string]time.Time, error)
	// LinkSave folds rs into the stored checks of their URLs (Fold).
	LinkSave(ctx context.Context, rs []Result) error
	// SourceLinkURLs returns the distinct distribution URLs of the source's live datasets.
	SourceLinkURLs(ctx context.Context, sourceID string) ([]string, error)
	// SourceLinkChecks reports whether the source checks its links (harvest.LinkChecksOn of its
	// options); store.ErrNotFound for a source that is gone.
	SourceLinkChecks(ctx context.Context, sourceID string) (bool, error)
	// SourceQuality returns the quality of the source's live datasets from their stored checks,
	// as a QualityReport without its job, source and time.
	SourceQuality(ctx context.Context, sourceID string) (*harvest.QualityReport, error)
	// JobCreated returns when job jobID was created; store.ErrNotFound for an unknown job.
	JobCreated(ctx context.Context, jobID string) (time.Time, error)
	// QualityReportSave keeps a source's quality event (store.Store.QualityReportSave).
	QualityReportSave(ctx context.Context, r *store.QualityReport) error
}

// StageConfig configures the CHECK stage's Handler.
type StageConfig struct {
	// Recheck is how old a stored check may be before the URL is checked again: a URL is due
	// when it has no stored check or one older than Recheck (--link-recheck). 0 means "older
	// than the start of the message's job" (the one-shot `harvester harvest --check-links`,
	// which checks every URL of its source once); a message without a job then checks every
	// URL it names.
	Recheck time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Settled, when set, is called once a job's quality report is kept, before it is
	// published: the pipeline records the source's quality history again with the checks'
	// results (quality/assess.RecordJob). Its error is the report message's (retried).
	Settled func(ctx context.Context, jobID, sourceID string) error
}

// DefaultRecheck is StageConfig.Recheck's default in serve and worker (--link-recheck).
const DefaultRecheck = 7 * 24 * time.Hour

// recentMax bounds Handler.recent: past it the map starts again (the store then answers).
const recentMax = 100_000

// Handler is the CHECK stage: HandleLinks checks the due URLs of a LinkCheck, HandleReport
// settles a finished harvest job's checks and publishes its source's QualityReport. Neither
// settles anything of a job (DESIGN.md): no job waits for CHECK.
//
// Within a process a URL is checked once however many messages name it at once: a URL one
// handler is checking and storing is waited for by the others, and one checked since its
// cutoff (remembered, or stored) is not checked again. Two processes may each check a URL
// that both received at the same moment.
type Handler struct {
	checker *Checker
	st      Store
	cfg     StageConfig

	mu      sync.Mutex
	pending map[string]chan struct{} // URLs being checked and stored here, closed when stored
	recent  map[string]time.Time     // URLs checked and stored here: their CheckedAt
	jobs    map[string]time.Time     // job creation times (Recheck 0), by job id
}

// NewHandler returns the CHECK stage over checker and st.
func NewHandler(checker *Checker, st Store, cfg StageConfig) *Handler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Handler{checker: checker, st: st, cfg: cfg, pending: map[string]chan struct{}{},
		recent: map[string]time.Time{}, jobs: map[string]time.Time{}}
}

// HandleLinks handles a LinkCheck (harvest.SubjectCheck): it checks each of its URLs that is
// due and stores the results. A message of a source that does not check its links, or that is
// gone, changes nothing. It outputs nothing.
func (h *Handler) HandleLinks(msg *harvest.Message) ([]*harvest.Message, error) {
	ctx := msg.Context()
	var lc harvest.LinkCheck
	if err := harvest.Decode(msg, &lc); err != nil {
		return nil, harvest.Permanent(err)
	}
	if len(lc.URLs) == 0 {
		return nil, nil
	}
	if lc.SourceID != "" {
		on, err := h.st.SourceLinkChecks(ctx, lc.SourceID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && !on) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
	cutoff, err := h.cutoff(ctx, lc.JobID)
	if err != nil {
		return nil, err
	}
	return nil, h.checkDue(ctx, lc.URLs, cutoff)
}

// HandleReport handles a harvest report event (harvest.SubjectReport): for a harvest or
// force_harvest job of a source that checks its links, it checks what is still due of the
// source's distribution URLs (those of the job's datasets included, whose LinkCheck messages
// may still be queued; a URL another handler is checking is waited for), then publishes the
// source's QualityReport (harvest.SubjectQuality) and keeps it in the store. Other reports
// output nothing.
func (h *Handler) HandleReport(msg *harvest.Message) ([]*harvest.Message, error) {
	ctx := msg.Context()
	var rep harvest.Report
	if err := harvest.Decode(msg, &rep); err != nil {
		return nil, harvest.Permanent(err)
	}
	if rep.JobType != harvest.JobHarvest && rep.JobType != harvest.JobForceHarvest {
		return nil, nil
	}
	on, err := h.st.SourceLinkChecks(ctx, rep.SourceID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !on) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	urls, err := h.st.SourceLinkURLs(ctx, rep.SourceID)
	if err != nil {
		return nil, err
	}
	cutoff, err := h.cutoff(ctx, rep.JobID)
	if err != nil {
		return nil, err
	}
	if err := h.checkDue(ctx, urls, cutoff); err != nil {
		return nil, err
	}
	q, err := h.st.SourceQuality(ctx, rep.SourceID)
	if err != nil {
		return nil, err
	}
	q.JobID, q.SourceID, q.Time = rep.JobID, rep.SourceID, h.cfg.Now().UTC()
	out, err := harvest.QualityReportMessage(q)
	if err != nil {
		return nil, err
	}
	err = h.st.QualityReportSave(ctx, &store.QualityReport{JobID: q.JobID, SourceID: q.SourceID, CreatedAt: q.Time,
		Report: json.RawMessage(out.Payload)})
	if errors.Is(err, store.ErrNotFound) { // the source was deleted meanwhile
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("keep the quality report of job %s: %w", q.JobID, err)
	}
	if h.cfg.Settled != nil {
		if err := h.cfg.Settled(ctx, q.JobID, q.SourceID); err != nil {
			return nil, fmt.Errorf("record the quality of job %s: %w", q.JobID, err)
		}
	}
	return []*harvest.Message{out}, nil
}

// cutoff is the time before which a stored check is stale for a message of job jobID.
func (h *Handler) cutoff(ctx context.Context, jobID string) (time.Time, error) {
	if h.cfg.Recheck > 0 {
		return h.cfg.Now().Add(-h.cfg.Recheck), nil
	}
	if jobID == "" {
		return h.cfg.Now(), nil
	}
	h.mu.Lock()
	t, ok := h.jobs[jobID]
	h.mu.Unlock()
	if ok {
		return t, nil
	}
	t, err := h.st.JobCreated(ctx, jobID)
	if errors.Is(err, store.ErrNotFound) {
		return time.Time{}, harvest.UnknownJob(jobID)
	}
	if err != nil {
		return time.Time{}, err
	}
	h.mu.Lock()
	if len(h.jobs) > 1000 {
		clear(h.jobs)
	}
	h.jobs[jobID] = t
	h.mu.Unlock()
	return t, nil
}

// checkDue checks and stores each of urls whose stored check is missing or before cutoff, and
// waits for those another handler of this process is checking. It returns the first error of
// checking or storing; a URL given to another handler whose check failed is not tried again
// here (that handler's message is).
func (h *Handler) checkDue(ctx context.Context, urls []string, cutoff time.Time) error {
	urls = distinctURLs(urls)
	stored, err := h.st.LinkCheckedAt(ctx, urls)
	if err != nil {
		return err
	}
	var own []string
	var wait []chan struct{}
	h.mu.Lock()
	for _, u := range urls {
		if t, ok := stored[u]; ok && !t.Before(cutoff) {
			continue
		}
		if t, ok := h.recent[u]; ok && !t.Before(cutoff) {
			continue
		}
		if ch := h.pending[u]; ch != nil {
			wait = append(wait, ch)
			continue
		}
		h.pending[u] = make(chan struct{})
		own = append(own, u)
	}
	h.mu.Unlock()
	if len(own) > 0 {
		err = h.checkOwn(ctx, own)
	}
	for _, ch := range wait {
		select {
		case <-ch:
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		}
	}
	return err
}

// checkOwn checks and stores urls, which checkDue marked pending, and releases them.
func (h *Handler) checkOwn(ctx context.Context, urls []string) error {
	results, cerr := h.checker.Check(ctx, urls)
	serr := h.st.LinkSave(context.WithoutCancel(ctx), results)
	h.mu.Lock()
	defer h.mu.Unlock()
	if serr == nil {
		if len(h.recent)+len(results) > recentMax {
			clear(h.recent)
		}
		for _, r := range results {
			h.recent[r.URL] = r.CheckedAt
		}
	}
	for _, u := range urls {
		close(h.pending[u])
		delete(h.pending, u)
	}
	return errors.Join(cerr, serr)
}
