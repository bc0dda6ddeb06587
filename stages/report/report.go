// Package report is the REPORT stage, the job aggregator. It consumes settled outcomes
// (harvest.SubjectSettled) and counts each record key of a job once, in the same transaction
// as the record's error rows, final status and source_transform (the DCAT-US TRANSFORM made,
// carried on the outcome), so counts stay exact under redelivery. When the
// job's expected count is known (after a complete listing) and that many outcomes have settled,
// it finishes the job (complete) and publishes the harvest report (harvest.SubjectReport). A job
// that EXTRACT failed is reported as it is, in status error.
package report

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/notify"
	"github.com/harvester-dev/harvester/store"
)

// Notifier sends a finished job's report email (notify.Mailer). It returns how many messages
// it sent.
type Notifier interface {
	JobFinished(ctx context.Context, src notify.Source, job notify.Job) (int, error)
}

// Handler is the job aggregator over a store. The outcomes of a batch (HandleBatch) are settled
// together: one store.OutcomeSettleBatch transaction, and JobFinish for each job whose expected
// count the batch reached, up to MaxSettleBatch outcomes at a time.
type Handler struct {
	store     Store
	notifier  Notifier
	logger    *slog.Logger
	outcomes  *prometheus.CounterVec
	jobs      *prometheus.CounterVec
	duration  prometheus.Histogram
	batchSize prometheus.Histogram
	releaser  SharedKeyReleaser  // nil: pairs by a shared key are not settled at a job's end
	quality   QualityRecorder    // nil: no quality is recorded at a job's end
	bodies    harvest.BodyWriter // the reports' bodies: harvest.MemoryBodies unless SetBodyWriter
}

// Store is what the aggregator needs of the store (store.Store has it all).
type Store interface {
	JobErrorList(ctx context.Context, jobID string) ([]*store.JobError, error)
	JobFinish(ctx context.Context, jobID string) (*store.HarvestJob, bool, error)
	JobErrorAdd(ctx context.Context, p *store.JobErrorAddParams) error
	JobGet(ctx context.Context, jobID string) (*store.HarvestJob, error)
	JobCountHeld(ctx context.Context, jobID string) (*store.HarvestJob, error)
	JobSetExpected(ctx context.Context, p *store.JobSetExpectedParams) (*store.HarvestJob, error)
	CatalogsChangedInJob(ctx context.Context, jobID string) ([]store.Resource, error)
	CrossSourceDuplicateList(ctx context.Context, p *store.CrossSourceDuplicateListParams) ([]store.CrossSourceDuplicate, int, error)
	OutcomeIdentifiers(ctx context.Context, p *store.OutcomeIdentifiersParams) ([]string, error)
	ResourceIDs(ctx context.Context, uris []string, mint func(uri string) string) (map[string]string, error)
	OrganizationGet(ctx context.Context, id string) (*store.Organization, error)
	OutcomeSettleBatch(ctx context.Context, ps []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error)
	RecordErrorStream(ctx context.Context, jobID string, fn func(*store.RecordError) error) error
	SourceGet(ctx context.Context, sourceID string) (*store.Source, error)
}

// store.Store satisfies Store.
var _ Store = store.Store(nil)

// MaxSettleBatch is the most outcomes one settle transaction counts.
const MaxSettleBatch = 500

// settleResult is one outcome's settle: the job after the batch and whether the outcome was
// new, and on one outcome per job of the batch, the job when the batch finished it.
type settleResult struct {
	*store.OutcomeSettled
	finished *store.HarvestJob
}

// New returns the aggregator; its metrics are registered with reg (harvester_records_settled_total
// by outcome, harvester_jobs_finished_total by status, harvester_job_duration_seconds). A nil
// notifier sends no email.
func New(st Store, reg prometheus.Registerer, notifier Notifier, logger *slog.Logger) (*Handler, error) {
	h := &Handler{
		store:    st,
		bodies:   harvest.MemoryBodies{},
		notifier: notifier,
		logger:   logger,
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "harvester_records_settled_total",
			Help: "Record outcomes counted, by the process that settled them (the job aggregator, or EXTRACT and SYNC, which settle theirs themselves)."}, []string{"outcome"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "harvester_jobs_finished_total",
			Help: "Harvest jobs finished, by final status."}, []string{"status"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "harvester_job_duration_seconds",
			Help: "Wall time from job creation to its end.", Buckets: prometheus.ExponentialBuckets(0.5, 2, 16)}),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "harvester_settle_batch_outcomes",
			Help: "Outcomes counted per settle transaction of the job aggregator.", Buckets: prometheus.ExponentialBuckets(1, 2, 10)}),
	}
	for _, c := range []prometheus.Collector{h.outcomes, h.jobs, h.duration, h.batchSize} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register report metrics: %w", err)
		}
	}
	return h, nil
}

// Counted counts n outcomes settled as outcome outside the aggregator
// (harvester_records_settled_total): EXTRACT's unchanged records of a claimed listing, which it
// settles itself (extract.Config.Settled).
func (h *Handler) Counted(outcome harvest.Outcome, n int) {
	h.outcomes.WithLabelValues(string(outcome)).Add(float64(n))
}

// SetBodyWriter makes the aggregator write its reports' bodies through b (router.Bus: a body
// over the message size is streamed into the claim-check bucket as it is written) instead of
// holding each whole (harvest.MemoryBodies, the default). Call it before the handler runs.
func (h *Handler) SetBodyWriter(b harvest.BodyWriter) { h.bodies = b }

// Close releases nothing now (each batch settles its own outcomes); it is kept for the
// pipeline's shutdown.
func (h *Handler) Close() {}

// settleBatch settles a batch of outcomes in one transaction, then tries to finish each job of
// the batch once. When the batch's transaction fails, each outcome is settled alone, so one
// bad outcome fails only its own message.
func (h *Handler) settleBatch(ctx context.Context, ps []*store.OutcomeSettleParams) ([]settleResult, []error, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out := make([]settleResult, len(ps))
	errs := make([]error, len(ps))
	res, err := h.store.OutcomeSettleBatch(ctx, ps)
	if err != nil && len(ps) == 1 {
		return nil, nil, err
	}
	if err != nil {
		h.logger.Warn("settle batch failed; settling its outcomes one by one", "outcomes", len(ps), "error", err)
		res = make([]*store.OutcomeSettled, len(ps))
		for i := range ps {
			one, err := h.store.OutcomeSettleBatch(ctx, ps[i:i+1])
			if err != nil {
				res[i] = &store.OutcomeSettled{Err: err}
				continue
			}
			res[i] = one[0]
		}
	}
	h.batchSize.Observe(float64(len(ps)))
	// Each job's row after its last settled item: after the whole batch, or, settled one by
	// one, after the last of them.
	latest := map[string]*store.HarvestJob{}
	for i, r := range res {
		if r.Err == nil {
			latest[ps[i].JobID] = r.Job
		}
	}
	tried := map[string]bool{}
	for i, r := range res {
		out[i].OutcomeSettled, errs[i] = r, r.Err
		if r.Err != nil || tried[ps[i].JobID] {
			continue
		}
		tried[ps[i].JobID] = true
		if !latest[ps[i].JobID].MayFinish() { // JobFinish would change nothing: not sent (one statement a batch, most of its cost the planning of its subqueries)
			continue
		}
		job, finished, err := h.store.JobFinish(ctx, ps[i].JobID)
		switch {
		case err != nil && !errors.Is(err, store.ErrNotFound):
			errs[i] = fmt.Errorf("finish job: %w", err) // redelivered: its settle is a no-op, the finish is tried again
		case finished:
			out[i].finished = job
		}
	}
	return out, errs, nil
}

// Handle counts one settled message and returns the harvest report when it finished the job:
// HandleBatch of one.
func (h *Handler) Handle(msg *harvest.Message) ([]*harvest.Message, error) {
	r := h.HandleBatch(msg.Context(), []*harvest.Message{msg})[0]
	return r.Out, r.Err
}

// HandleBatch is the aggregator as the router runs it (harvest.BatchHandler): the outcomes of
// the batch are settled in one transaction (settleBatch: store.Store.OutcomeSettleBatch, up to
// MaxSettleBatch at a time; one by one when it fails, so that a bad outcome fails alone), then
// each message's job is finished and reported when its outcomes are all in. A message of a job
// that this database does not have (deleted with its source) is harvest.UnknownJob: the router
// counts it, logs it and acks it.
func (h *Handler) HandleBatch(ctx context.Context, batch []*harvest.Message) []harvest.Result {
	out := make([]harvest.Result, len(batch))
	settled := make([]harvest.Settled, len(batch))
	var ps []*store.OutcomeSettleParams
	var at []int
	for i, msg := range batch {
		s := &settled[i]
		if err := harvest.Decode(msg, s); err != nil {
			out[i].Err = harvest.Permanent(err)
			continue
		}
		if s.Kind == harvest.SettledOutcome {
			ps = append(ps, store.SettledOutcome(s))
			at = append(at, i)
		}
	}
	results := make([]settleResult, len(batch))
	errs := make([]error, len(batch))
	for lo := 0; lo < len(ps); lo += MaxSettleBatch {
		hi := min(lo+MaxSettleBatch, len(ps))
		rs, es, err := h.settleBatch(ctx, ps[lo:hi])
		for j, i := range at[lo:hi] {
			switch {
			case err != nil:
				errs[i] = err
			default:
				results[i], errs[i] = rs[j], es[j]
			}
		}
	}
	isOutcome := make([]bool, len(batch))
	for _, i := range at {
		isOutcome[i] = true
		// Counted for the whole batch before any job's report goes out: the report event comes
		// after the metrics, and the records of a batch are finished in parallel below.
		if r := results[i]; r.OutcomeSettled != nil && r.Fresh {
			h.outcomes.WithLabelValues(string(settled[i].Outcome)).Inc()
		}
	}
	harvest.ForEach(len(batch), func(i int) {
		if out[i].Err != nil {
			return
		}
		var o []*harvest.Message
		var err error
		if isOutcome[i] {
			o, err = h.settled(ctx, &settled[i], results[i], errs[i])
		} else {
			o, err = h.handle(batch[i].Context(), &settled[i])
		}
		if errors.Is(err, store.ErrNotFound) {
			err = harvest.UnknownJob(settled[i].JobID)
		}
		out[i].Out, out[i].Err = o, err
	})
	return out
}

// settled is what follows the settle of outcome s (its result r, or err): the harvest report
// when it finished the job, or again when a replayed record changed a finished job's counts.
func (h *Handler) settled(ctx context.Context, s *harvest.Settled, r settleResult, err error) ([]*harvest.Message, error) {
	switch {
	case err != nil:
		return nil, fmt.Errorf("settle outcome: %w", err)
	case r.finished != nil:
		return h.report(ctx, r.finished)
	case r.Fresh && r.Job.Status.Finished(): // a replayed record changed a finished job's counts
		return h.replayReport(ctx, r.Job)
	}
	return nil, nil
}

// handle handles a settled message other than an outcome: the job's expected count, or the
// end of a job that failed.
func (h *Handler) handle(ctx context.Context, s *harvest.Settled) ([]*harvest.Message, error) {
	switch s.Kind {
	case harvest.SettledExpected:
		if _, err := h.store.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: s.JobID, Expected: s.Expected}); err != nil {
			return nil, fmt.Errorf("set expected count: %w", err)
		}
	case harvest.SettledFailed:
		job, err := h.store.JobGet(ctx, s.JobID)
		if err != nil {
			return nil, fmt.Errorf("get failed job: %w", err)
		}
		return h.report(ctx, job)
	default:
		return nil, harvest.Permanent(fmt.Errorf("unknown settled kind %q", s.Kind))
	}
	job, finished, err := h.store.JobFinish(ctx, s.JobID)
	if err != nil || !finished {
		return nil, err
	}
	return h.report(ctx, job)
}

func (h *Handler) report(ctx context.Context, job *store.HarvestJob) ([]*harvest.Message, error) {
	h.releaseShared(ctx, job)
	src, err := h.store.SourceGet(ctx, job.SourceID)
	if err != nil {
		return nil, fmt.Errorf("get source of job: %w", err)
	}
	// The quality is scored (a pass over the source's datasets, holding a set of their URLs)
	// before the report's resource lists are read, so that the two are not held at once.
	quality := h.recordQuality(ctx, job, src)
	r := NewReport(job, src)
	invalid, err := h.resources(ctx, r)
	if err != nil {
		return nil, err
	}
	if job.Status == harvest.JobError {
		errs, err := h.store.JobErrorList(ctx, job.ID)
		if err != nil {
			return nil, fmt.Errorf("list job errors: %w", err)
		}
		if len(errs) > 0 {
			r.ErrorMessage = errs[len(errs)-1].Message
		}
	}
	h.notify(ctx, job, src, r.ErrorMessage, quality)
	h.jobs.WithLabelValues(string(job.Status)).Inc()
	h.duration.Observe(r.EndTime.Sub(r.StartTime).Seconds())
	return h.reportMessages(ctx, r, invalid)
}

// replayReport returns the harvest report of a finished job again after a replayed record
// changed its counts: the event carries the new counts. No email is sent, and the finished-job
// metrics are not counted again.
func (h *Handler) replayReport(ctx context.Context, job *store.HarvestJob) ([]*harvest.Message, error) {
	src, err := h.store.SourceGet(ctx, job.SourceID)
	if err != nil {
		return nil, fmt.Errorf("get source of job: %w", err)
	}
	r := NewReport(job, src)
	invalid, err := h.resources(ctx, r)
	if err != nil {
		return nil, err
	}
	return h.reportMessages(ctx, r, invalid)
}

// lookupChunk is how many URIs one store.ResourceIDs call of the aggregator looks up: its map
// (and the rows it reads) is held for one chunk at a time, not for every record a job changed.
const lookupChunk = 500

// resources fills the report's changedCatalogs (store.CatalogsChangedInJob) and returns the
// records the job validated and found invalid (invalidIdentifiers), sorted by URI, for the
// FDK form of the report, each with its fdkId (store.ResourceIDs, minted by harvest.FdkID the
// first time a URI is seen, so DCAT-US identifiers get one too). The changedResources and
// removedResources are read as the report's bodies are written (reportMessages).
func (h *Handler) resources(ctx context.Context, r *harvest.Report) (invalid []harvest.Resource, err error) {
	catalogs, err := h.store.CatalogsChangedInJob(ctx, r.JobID)
	if err != nil {
		return nil, fmt.Errorf("list the job's changed catalogs: %w", err)
	}
	failed, err := h.invalidIdentifiers(ctx, r.JobID)
	if err != nil {
		return nil, err
	}
	if invalid, err = h.named(ctx, failed); err != nil {
		return nil, err
	}
	r.ChangedCatalogs = append(r.ChangedCatalogs, catalogs...)
	return sortedByURI(invalid), nil
}

// named returns uris as resources with their fdkIds, looked up (or minted) lookupChunk at a
// time.
func (h *Handler) named(ctx context.Context, uris []string) ([]harvest.Resource, error) {
	out := make([]harvest.Resource, len(uris))
	for lo := 0; lo < len(uris); lo += lookupChunk {
		chunk := uris[lo:min(lo+lookupChunk, len(uris))]
		ids, err := h.store.ResourceIDs(ctx, chunk, harvest.FdkID)
		if err != nil {
			return nil, fmt.Errorf("look up fdkIds: %w", err)
		}
		for i, u := range chunk {
			out[lo+i] = harvest.Resource{FdkID: ids[u], URI: u}
		}
	}
	return out, nil
}

// NewReport builds the harvest report event of a finished job without ErrorMessage and with
// empty resource lists (the Handler fills them from the store).
func NewReport(job *store.HarvestJob, src *store.Source) *harvest.Report {
	end := time.Now().UTC()
	if job.FinishedAt != nil {
		end = job.FinishedAt.UTC()
	}
	return &harvest.Report{V: harvest.Version, ID: job.SourceID, JobID: job.ID, SourceID: job.SourceID, URL: src.URL, DataType: "dataset",
		JobType: job.JobType, Status: job.Status, HarvestError: job.Status == harvest.JobError,
		StartTime: job.CreatedAt.UTC(), EndTime: end, Counts: job.Counts,
		ChangedCatalogs: []harvest.Resource{}, ChangedResources: []harvest.Resource{}, RemovedResources: []harvest.Resource{}}
}

// notify emails the job report to the source's recipients, as its notification_frequency
// says. A failed email is logged, never retried: the job's outcome does not depend on it.
func (h *Handler) notify(ctx context.Context, job *store.HarvestJob, src *store.Source, jobError string, q *notify.Quality) {
	if h.notifier == nil || len(src.NotificationEmails) == 0 {
		return
	}
	orgName := ""
	if src.OrganizationID != "" {
		if org, err := h.store.OrganizationGet(ctx, src.OrganizationID); err == nil {
			orgName = org.Name
		}
	}
	finished := time.Now().UTC()
	if job.FinishedAt != nil {
		finished = *job.FinishedAt
	}
	nj := notify.Job{ID: job.ID, JobType: job.JobType, Status: job.Status, Counts: job.Counts,
		StartedAt: job.CreatedAt, FinishedAt: finished, JobError: jobError, Quality: q}
	h.newDuplicates(ctx, &nj, src.ID)
	h.heldDuplicates(ctx, &nj, src.ID)
	sent, err := h.notifier.JobFinished(ctx, notify.Source{ID: src.ID, Name: src.Name, URL: src.URL,
		OrganizationName: orgName, NotificationEmails: src.NotificationEmails,
		NotificationFrequency: src.NotificationFrequency}, nj)
	if err != nil {
		h.logger.Error("job report email failed", harvest.MetaJobID, job.ID, "sent", sent, "error", err)
	}
}
