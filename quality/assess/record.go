package assess

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/notify"
	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/store"
)

// RecordStore is what RecordJob needs of store.Store.
type RecordStore interface {
	Store
	QualityAggregateHistory(ctx context.Context, p *store.QualityAggregateHistoryParams) ([]*store.QualityAggregate, error)
	QualityAggregateLatest(ctx context.Context, scope string) ([]*store.QualityAggregate, error)
	QualityAggregateSave(ctx context.Context, rows []*store.QualityAggregate) error
	QualityChangeList(ctx context.Context, sourceID string) ([]int64, error)
	QualityChangeDelete(ctx context.Context, ids []int64) error
}

// store.Store satisfies RecordStore.
var _ RecordStore = store.Store(nil)

// Recorded is what RecordJob stored of a finished job: the source's quality now, the one its
// previous recorded job left (nil for the first), and the links broken since then.
type Recorded struct {
	Source   *Source
	Previous *Source
	// NewlyBroken are the source's links that broke since the previous record (all its broken
	// links at the first): broken now, and either answered OK after the previous record or
	// failed for the first time since their last OK after it (one consecutive failure). A link
	// that answered OK after the previous record and broke twice since counts; one whose
	// failures began before, or whose first failures since then are several checks ago, does
	// not. Longest broken first, as BrokenLinks.
	NewlyBroken []*BrokenLink
}

// Records reports whether a job of this type and status gets its quality recorded: a complete
// job that can change the catalog (harvest, force_harvest, clear); a validate job writes no
// dataset, and a failed job leaves the catalog as its predecessor did.
func Records(job *store.HarvestJob) bool {
	return job.Status == harvest.JobComplete && job.JobType != harvest.JobValidate
}

// RecordJob scores the live datasets of the finished job's source (SourceQuality) and stores,
// for the job, the source's aggregate, its organization's (when it has one) and the whole
// catalog's (store.QualityAggregateSave): an organization's and the catalog's are
// quality.Combine of the latest aggregate of each of their sources that exists, so a source
// with no recorded job yet is not in them, and their link counts are sums over the sources. It
// does it for any job; callers record those that Records names. Recording a job again replaces
// its rows.
//
// The source is scored only when what its score reads changed since its newest aggregate was
// scored (store.Store QualityChangeList: a mark of such a change exists) or it has no
// aggregate; otherwise its newest aggregate's summary is its score, the same as scoring it
// again. The marks read before a scoring are deleted once the job's rows are stored, when the
// job's source row is the source's newest: the newest aggregate is always scored from
// inputs without any mark since. RecordJob calls for one source are not run at once (the job
// aggregator records a job's end once the job has ended; a source has one job at a time).
func RecordJob(ctx context.Context, st RecordStore, job *store.HarvestJob, src *store.Source) (*Recorded, error) {
	prevRows, err := st.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{
		Scope: store.QualityScopeSource, ScopeID: src.ID, Limit: 2, Summaries: true})
	if err != nil {
		return nil, fmt.Errorf("read the quality history of source %s: %w", src.ID, err)
	}
	var prev, newest *store.QualityAggregate
	for _, r := range prevRows { // the newest that is not this job's own (a job recorded again)
		if r.JobID != job.ID {
			prev = r
		}
		newest = r
	}
	marks, err := st.QualityChangeList(ctx, src.ID)
	if err != nil {
		return nil, fmt.Errorf("read the quality changes of source %s: %w", src.ID, err)
	}
	var now *Source
	if len(marks) == 0 && newest != nil {
		now, err = SourceOf(newest)
	} else {
		now, err = SourceQuality(ctx, st, src.ID)
	}
	if err != nil {
		return nil, err
	}
	at := time.Now().UTC()
	if job.FinishedAt != nil {
		at = job.FinishedAt.UTC()
	}
	row, err := aggregateRow(store.QualityScopeSource, src.ID, job, at, now)
	if err != nil {
		return nil, err
	}
	rows, err := combinedRows(ctx, st, job, src, at, row, now)
	if err != nil {
		return nil, err
	}
	if err := st.QualityAggregateSave(ctx, rows); err != nil {
		return nil, fmt.Errorf("store the quality of job %s: %w", job.ID, err)
	}
	if err := consumeChanges(ctx, st, job, src, marks); err != nil {
		return nil, err
	}

	out := &Recorded{Source: now}
	if prev != nil {
		if out.Previous, err = SourceOf(prev); err != nil {
			return nil, err
		}
	}
	if out.NewlyBroken, err = newlyBroken(ctx, st, src.ID, now, prev); err != nil {
		return nil, err
	}
	return out, nil
}

// consumeChanges deletes the marks (read before the source was scored for job) when job's
// source row is the source's newest aggregate, which is then scored from every change they
// mark; else (an older job recorded again) they stay, and the next job scores the source again.
func consumeChanges(ctx context.Context, st RecordStore, job *store.HarvestJob, src *store.Source, marks []int64) error {
	if len(marks) == 0 {
		return nil
	}
	rows, err := st.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{
		Scope: store.QualityScopeSource, ScopeID: src.ID, Limit: 1})
	if err != nil {
		return fmt.Errorf("read the quality history of source %s: %w", src.ID, err)
	}
	if len(rows) != 1 || rows[0].JobID != job.ID {
		return nil
	}
	if err := st.QualityChangeDelete(ctx, marks); err != nil {
		return fmt.Errorf("delete the quality changes of source %s: %w", src.ID, err)
	}
	return nil
}

// newlyBroken are the source's links broken since prev was recorded (Recorded.NewlyBroken);
// every broken link when prev is nil.
func newlyBroken(ctx context.Context, st Store, sourceID string, now *Source, prev *store.QualityAggregate) ([]*BrokenLink, error) {
	if now.Links.Broken == 0 {
		return nil, nil
	}
	broken, err := BrokenLinks(ctx, st, sourceID)
	if err != nil {
		return nil, err
	}
	var out []*BrokenLink
	for _, b := range broken {
		if prev == nil || b.LastOKAt.After(prev.ComputedAt) || (b.ConsecutiveFailures == 1 && b.CheckedAt.After(prev.ComputedAt)) {
			out = append(out, b)
		}
	}
	return out, nil
}

// combinedRows are the rows of the job: the source's row, its organization's (when it has one)
// and the catalog's, each combining the latest aggregate of its sources with now, the source's.
func combinedRows(ctx context.Context, st RecordStore, job *store.HarvestJob, src *store.Source, at time.Time,
	row *store.QualityAggregate, now *Source,
) ([]*store.QualityAggregate, error) {
	latest, err := st.QualityAggregateLatest(ctx, store.QualityScopeSource)
	if err != nil {
		return nil, fmt.Errorf("read the sources' latest quality: %w", err)
	}
	catalog, org := []*Source{now}, []*Source{now}
	for _, l := range latest {
		if l.ScopeID == src.ID {
			continue
		}
		s, err := SourceOf(l)
		if err != nil {
			return nil, err
		}
		catalog = append(catalog, s)
		if src.OrganizationID != "" && l.OrganizationID == src.OrganizationID {
			org = append(org, s)
		}
	}
	rows := []*store.QualityAggregate{row}
	if src.OrganizationID != "" {
		r, err := aggregateRow(store.QualityScopeOrganization, src.OrganizationID, job, at, CombineSources(org...))
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	r, err := aggregateRow(store.QualityScopeCatalog, "", job, at, CombineSources(catalog...))
	if err != nil {
		return nil, err
	}
	return append(rows, r), nil
}

// aggregateRow is the quality_aggregate row of s for scope and scopeID at job's end.
func aggregateRow(scope, scopeID string, job *store.HarvestJob, at time.Time, s *Source) (*store.QualityAggregate, error) {
	summary, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return &store.QualityAggregate{Scope: scope, ScopeID: scopeID, JobID: job.ID, SourceID: job.SourceID,
		ComputedAt: at, Datasets: s.Datasets, Mean: s.Mean, Rating: string(s.Rating),
		LinksURLs: s.Links.URLs, LinksBroken: s.Links.Broken, Summary: summary}, nil
}

// SourceOf reads the summary a stored aggregate holds (store.QualityAggregate.Summary, read
// with it).
func SourceOf(a *store.QualityAggregate) (*Source, error) {
	var s Source
	if err := json.Unmarshal(a.Summary, &s); err != nil {
		return nil, fmt.Errorf("read the quality summary of %s %s, job %s: %w", a.Scope, a.ScopeID, a.JobID, err)
	}
	if s.Ratings == nil {
		s.Ratings = map[quality.Rating]int{}
	}
	return &s, nil
}

// CombineSources is the quality of the union of the sources' datasets (quality.Combine) with
// their link counts summed.
func CombineSources(srcs ...*Source) *Source {
	sums := make([]quality.Summary, len(srcs))
	out := &Source{}
	for i, s := range srcs {
		sums[i] = s.Summary
		out.Links.URLs += s.Links.URLs
		out.Links.Checked += s.Links.Checked
		out.Links.OK += s.Links.OK
		out.Links.Broken += s.Links.Broken
		out.Links.Unchecked += s.Links.Unchecked
	}
	out.Summary = quality.Combine(sums...)
	return out
}

// Recorder is RecordJob over a store, as the job aggregator calls it
// (report.QualityRecorder): for the jobs Records names, the source's quality as the job email
// gives it (notify.Quality, at most notify.MaxDuplicateLines newly broken links listed).
type Recorder struct{ Store RecordStore }

// RecordJob implements report.QualityRecorder: nil for a job Records does not name, else
// RecordJob(ctx, r.Store, job, src) for the email.
func (r Recorder) RecordJob(ctx context.Context, job *store.HarvestJob, src *store.Source) (*notify.Quality, error) {
	if !Records(job) {
		return nil, nil
	}
	rec, err := RecordJob(ctx, r.Store, job, src)
	if err != nil {
		return nil, err
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
	return q, nil
}
