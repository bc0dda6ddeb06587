package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/notify"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/settle"
	"github.com/harvester-dev/harvester/stages/catalogsync"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/stages/compare"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/report"
	"github.com/harvester-dev/harvester/stages/transform"
	"github.com/harvester-dev/harvester/stages/validate"
	"github.com/harvester-dev/harvester/store"
)

// Stage names, as `harvester worker --stages` spells them (harvest.Stage*).
const (
	StageExtract   = harvest.StageExtract
	StageCompare   = harvest.StageCompare
	StageListing   = harvest.StageListing
	StageTransform = harvest.StageTransform
	StageValidate  = harvest.StageValidate
	StageSync      = harvest.StageSync
	StageReport    = harvest.StageReport
	StageTrigger   = harvest.StageTrigger
	StageCheck     = harvest.StageCheck // CHECK: its two consumers (link checks, and the jobs' reports it settles on)
)

// StageNames lists every stage in pipeline order.
func StageNames() []string {
	return []string{StageExtract, StageCompare, StageListing, StageTransform, StageValidate, StageSync, StageReport,
		StageTrigger, StageCheck}
}

// syncConcurrency multiplies SYNC's share of Config.Concurrency (messages handled at once):
// its handlers wait on the search index's bulk writes, which are grouped from concurrent
// handlers, and a batch's dataset upserts are one statement (catalogsync.Handler.HandleBatch),
// so more of them at once means fuller batches. Each bleve batch costs ~5 ms of CPU
// of its own (BenchmarkIndex: 1.5 CPU-ms a document from 4 writers, 0.56 from 16, 0.32 from 64).
const syncConcurrency = 16

// reportConcurrency multiplies REPORT's share of Config.Concurrency: the aggregator settles
// the outcomes of a batch in one transaction (report.Handler.HandleBatch), and its batches are
// up to that share (and Config.BatchSize) long, so a larger share means fuller batches. One handler each settling alone held the
// job's row lock per outcome and paced the whole pipeline (bench: 10-15 ms per outcome at 4).
const reportConcurrency = 16

// compareConcurrency multiplies COMPARE's share of Config.Concurrency: its batches (up to
// that share, and Config.BatchSize) are looked up in one query and inserted in one statement
// (compare.Handler.HandleBatch), so the larger they are the fewer statements a record costs.
// With the default --concurrency 4 its batches are the default batch size, 64.
const compareConcurrency = 16

// passConcurrency multiplies Config.Concurrency for TRANSFORM and VALIDATE. Their own work is
// short (bench: 0.03 and 0.15 ms a record), but each handler then waits for JetStream's PubAck
// of the message it sends on (the router publishes it synchronously, so that the input is acked
// only after its output is stored): with 4 handlers the two stages held 200-300 messages
// unacked each and paced the pipeline at the PubAck round trip (bench, 20,000 records: 1,000
// records/s, the machine partly idle).
const passConcurrency = 8

// checkConcurrency multiplies Config.Concurrency for CHECK's link checks: its handlers wait on
// HTTP answers, each host's at most check.Config.HostConcurrency at a time, so many of them at
// once keep many hosts busy (the Checker caps the checks in flight at check.Config.Parallel).
const checkConcurrency = 16

// EXTRACT lists Config.Concurrency jobs at once (the scheduler's default --max-jobs is 4 too),
// each paced by extract.Config.JobWindow: a big listing no longer holds the jobs behind it
// until it has streamed all its records, and none of them fills the streams ahead of the
// others. Each listing holds its download (a temporary file) or an rdf source's graph (up to
// RDFMemTriples in memory) while it runs.

// stages are the handlers of every stage, built once per process over its store and bus.
type stages struct {
	cfg     Config
	store   store.Store
	fail    harvest.FailJob
	search  *search.Batcher // nil without an index, or without SYNC or REPORT here
	report  *report.Handler
	check   *check.Handler // nil: this process does not run CHECK
	checker *check.Checker // check's link checker, whose per-host limits the CHECK processes share
	sync    *catalogsync.Handler
	compare *compare.Handler
	extract *extract.Handler
	// extractPub and comparePub publish for the stages that publish from inside their
	// handlers (a listing's records, its deletes): asynchronously, each handler waiting for
	// the PubAcks before it returns.
	extractPub, comparePub *router.DeferredPublisher
}

func newStages(p *Pipeline, notifier *notify.Mailer) (*stages, error) {
	s := &stages{cfg: p.cfg, store: p.store}
	s.fail = jobs.StageFail(p.store)
	var n report.Notifier
	if notifier != nil {
		n = notifier
	}
	var err error
	if s.report, err = report.New(p.store, p.reg, n, p.cfg.Logger); err != nil {
		return nil, err
	}
	if p.index != nil && (slices.Contains(p.cfg.Stages, StageSync) || slices.Contains(p.cfg.Stages, StageReport)) {
		m, err := search.NewMetrics(p.reg)
		if err != nil {
			return nil, err
		}
		s.search = search.NewBatcher(p.index, search.BatcherConfig{Metrics: m})
	}
	s.sync = catalogsync.New(p.store, s.search)
	s.report.SetSharedKeyReleaser(s.sync)                        // a job's end settles its pairs by a shared key, indexed
	s.report.SetQualityRecorder(assess.Recorder{Store: p.store}) // and records the source's quality
	if p.bus != nil {
		s.report.SetBodyWriter(p.bus) // its report's bodies streamed into the claim-check bucket
	}
	s.sync.SetLinkChecks(p.cfg.LinkChecks != nil)
	// SYNC and COMPARE settle their records themselves (package settle): one hop fewer each.
	self := settle.NewSelf(s.report.Counted, p.cfg.Logger)
	s.sync.SetSettled(self)
	if p.cfg.LinkChecks != nil && slices.Contains(p.cfg.Stages, StageCheck) {
		if s.check, s.checker, err = newCheck(p.cfg, p.store); err != nil {
			return nil, err
		}
	}
	if s.extractPub, err = p.bus.NewDeferredPublisher(); err != nil {
		s.close()
		return nil, err
	}
	if s.comparePub, err = p.bus.NewDeferredPublisher(); err != nil {
		s.close()
		return nil, err
	}
	s.compare = compare.New(p.store, s.comparePub, p.cfg.MaxDeleteShare)
	s.compare.SetSettled(self)
	s.extract = extract.New(p.store, s.extractPub, p.cfg.Fetch, extract.WithConfig(extract.Config{
		MaxRecordBytes: p.cfg.MaxRecordBytes, MaxRDFPages: p.cfg.MaxRDFPages, RDFMemTriples: p.cfg.RDFMemTriples,
		JobWindow: p.cfg.JobWindow, RefuseLocalFiles: p.cfg.RefuseLocalFiles, Listers: ExtractListers(),
		Settled: s.report.Counted}))
	return s, nil
}

// close releases the handlers' batchers, after the router stopped running them.
func (s *stages) close() {
	if s.search != nil {
		s.search.Close()
	}
	s.report.Close()
	s.sync.Close()
	if s.compare != nil {
		s.compare.Close()
	}
}

// topology is every stage and its subject: the one table that wires the pipeline. Each
// stage's give-up hook comes from its package; each handler runs in run, which hands the
// stage's job failures to jobs. Every stage is a harvest.BatchHandler (the stage contract);
// the per-record stages handle each message of a batch at once (harvest.Each), in batches of up
// to Config.BatchSize (and their Concurrency); EXTRACT, the listing and the trigger take one
// message a batch (MaxBatch 1): each is a long piece of work that publishes as it goes.
func topology(s *stages) []router.Stage {
	n := s.cfg.Concurrency
	table := []router.Stage{
		{Name: StageExtract, Subject: harvest.SubjectExtract, Handler: harvest.Each(noOutput(s.extract.Handle)),
			Deferred: s.extractPub, GiveUp: extract.GiveUp(s.fail), AckWait: time.Minute, Concurrency: n, MaxPending: n, MaxBatch: 1},
		{Name: StageCompare, Subject: harvest.SubjectCompare, Handler: s.compare.HandleBatch,
			Deferred: s.comparePub, GiveUp: compare.GiveUp(s.fail), AckWait: time.Minute,
			Concurrency: compareConcurrency * n, MaxPending: 64},
		{Name: StageListing, Subject: harvest.SubjectListing, Handler: harvest.Each(s.compare.HandleListing),
			Deferred: s.comparePub, GiveUp: compare.GiveUpListing(s.fail), AckWait: time.Minute, Concurrency: 1, MaxPending: 1, MaxBatch: 1},
		{Name: StageTransform, Subject: harvest.SubjectTransform, Handler: harvest.Each(transform.New(transform.WithLanguages(s.cfg.Languages)).Handle),
			GiveUp: transform.GiveUp(s.fail), AckWait: time.Minute, Concurrency: passConcurrency * n, MaxPending: 64},
		{Name: StageValidate, Subject: harvest.SubjectValidate, Handler: harvest.Each(validate.New().Handle),
			GiveUp: validate.GiveUp(s.fail), AckWait: time.Minute, Concurrency: passConcurrency * n, MaxPending: 64},
		{Name: StageSync, Subject: harvest.SubjectSync, Handler: s.sync.HandleBatch,
			GiveUp: catalogsync.GiveUp(s.fail), AckWait: time.Minute, Concurrency: syncConcurrency * n, MaxPending: 16},
		{Name: StageReport, Subject: harvest.SubjectSettled, Handler: s.report.HandleBatch,
			GiveUp: report.GiveUp(s.fail), AckWait: time.Minute, Concurrency: reportConcurrency * n, MaxPending: 32},
		{Name: StageTrigger, Subject: harvest.SubjectTrigger, Handler: harvest.Each(noOutput(jobs.NewTriggerHandler(s.store, s.cfg.Logger).Handle)),
			GiveUp: jobs.TriggerGiveUp(s.fail), AckWait: time.Minute, Concurrency: 1, MaxPending: 16, MaxBatch: 1},
	}
	if s.check != nil {
		table = append(table,
			router.Stage{Name: StageCheck, Subject: harvest.SubjectCheck, Handler: harvest.Each(s.check.HandleLinks),
				AckWait: time.Minute, Concurrency: checkConcurrency * n, MaxPending: 64},
			// Each report may wait minutes for its source's links: a few at a time.
			router.Stage{Name: harvest.StageCheckSettle, Subject: harvest.SubjectReport, Handler: harvest.Each(s.check.HandleReport),
				AckWait: time.Minute, Concurrency: n, MaxPending: n, MaxBatch: 1, DeliverNew: true})
	}
	for i := range table {
		table[i].Handler = run(s.store, table[i].Handler)
	}
	return table
}

// LinkCheckConfig configures CHECK (Config.LinkChecks).
type LinkCheckConfig struct {
	// Checker is the link checker's configuration (check.Config: per-host concurrency and
	// rate, excluded hosts, …); its UserAgent and AllowPrivate, when not set, are
	// Config.Fetch's, so that every request of the process says the same.
	Checker check.Config
	// Recheck is how old a stored check may be before its URL is checked again
	// (check.StageConfig.Recheck, --link-recheck; check.DefaultRecheck in serve and worker);
	// the scheduler's leader queues those older. 0: a URL checked before the start of the job
	// that sends it is checked again, and the leader queues nothing (the one-shot harvest).
	Recheck time.Duration
	// Heartbeat is how often a process running CHECK says so in the bus's members bucket
	// (router.Join), where the CHECK processes count themselves to divide the per-host limits
	// between them (check.Checker.SetShare); 0: router.DefaultHeartbeat (5 s). A process that
	// dies without leaving is no longer counted after three of its heartbeats.
	Heartbeat time.Duration
}

// newCheck builds CHECK's handler over its link checker, which it returns too (cfg.LinkChecks
// is set).
func newCheck(cfg Config, st store.Store) (*check.Handler, *check.Checker, error) {
	lc := *cfg.LinkChecks
	cc := lc.Checker
	cc.UserAgent = cmp.Or(cc.UserAgent, cfg.Fetch.UserAgent)
	cc.AllowPrivate = cc.AllowPrivate || cfg.Fetch.AllowPrivate
	c, err := check.New(cc)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return check.NewHandler(c, assess.StageStore{Store: st}, check.StageConfig{Recheck: lc.Recheck,
		Settled: func(ctx context.Context, jobID, sourceID string) error {
			return recordChecked(ctx, st, jobID, sourceID)
		}}), c, nil
}

// recordChecked records the quality of job jobID's source again once its link checks settled
// (the job's end recorded it before them), so that the quality history, the metrics and the
// pages show what the checks found. A job or source deleted meanwhile records nothing.
func recordChecked(ctx context.Context, st store.Store, jobID, sourceID string) error {
	job, err := st.JobGet(ctx, jobID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !assess.Records(job)) {
		return nil
	}
	if err != nil {
		return err
	}
	src, err := st.SourceGet(ctx, sourceID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = assess.RecordJob(ctx, st, job, src)
	return err
}

// run is the runner of one stage's handler, the one place a stage's harvest.JobFailure goes:
// the job of each message answered with one is ended through jobs (jobs.FailStage) and the
// message acked, with the SettledFailed message that tells the aggregator as its output; a
// job failure that could not be written is that message's error, and it is retried. Other
// errors and outputs pass as they are.
func run(st jobs.JobFailer, h harvest.BatchHandler) harvest.BatchHandler {
	return func(ctx context.Context, batch []*harvest.Message) []harvest.Result {
		res := h(ctx, batch)
		for i := range res {
			if f := harvest.AsJobFailure(res[i].Err); f != nil {
				res[i].Out, res[i].Err = jobs.FailStage(batch[i].Context(), st, f)
			}
		}
		return res
	}
}

func noOutput(h func(*harvest.Message) error) harvest.HandlerFunc {
	return func(m *harvest.Message) ([]*harvest.Message, error) { return nil, h(m) }
}
