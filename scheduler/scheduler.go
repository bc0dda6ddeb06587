package scheduler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
)

// Config configures a Scheduler. Zero fields take the documented defaults.
type Config struct {
	// Interval between ticks. Default 2 s.
	Interval time.Duration
	// MaxInProgress caps the jobs in progress across the installation. Default 4.
	MaxInProgress int
	// OrphanTimeout is how long a job in progress may go without a heartbeat before it is
	// re-driven (listed again from Postgres, with the same job id), and after MaxRedrives
	// re-drives finished as error. Default 30 minutes.
	OrphanTimeout time.Duration
	// MaxRedrives is how often an orphaned job is re-driven before it is failed. Default 3;
	// negative: never (an orphan is failed at once).
	MaxRedrives int
	// Holder names this scheduler in leader election. Default host name, pid and a random id.
	Holder string
	// LeaderTTL is the SQLite leader lease. Default 3 × Interval.
	LeaderTTL time.Duration
	// Pruner, when set, prunes the history (a retention.Pruner): the leader runs it at its
	// first tick and then every PruneInterval, in the background so that ticks go on, one run at
	// a time; a scheduler that stops, or finds at a tick that it no longer leads, ends its run.
	// nil prunes nothing.
	Pruner Pruner
	// PruneInterval is how often the leader runs Pruner (retention.Interval). Default 1 hour.
	PruneInterval time.Duration
	// Rechecker, when set, queues the link checks gone stale (the CHECK stage's
	// check.Rechecker, --link-recheck): the leader runs it at its first tick and then every
	// RecheckInterval, in the background as Pruner. nil queues none.
	Rechecker Pruner
	// RecheckInterval is how often the leader runs Rechecker. Default 1 hour.
	RecheckInterval time.Duration
	// BusReady, when set, says whether the broker can take job messages now (the pipeline
	// gives router.Bus.StreamsReady: connected, and the streams answer, made again when the
	// broker lost them). Orphan cleanup asks it before it re-drives: while it fails, no orphan
	// is re-driven or ended and no re-drive is counted, so a broker restarting (or restarted
	// with its store wiped) does not use up MaxRedrives; the orphans wait for it. nil: always
	// ready.
	BusReady func(ctx context.Context) error
}

// Pruner is what the scheduler runs to keep the history within its retention
// (retention.Pruner): Prune deletes what the retention no longer keeps with now as the clock,
// stopping when ctx ends.
type Pruner interface {
	Prune(ctx context.Context, now time.Time) error
}

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	c.Interval = cmp.Or(c.Interval, 2*time.Second)
	c.MaxInProgress = cmp.Or(c.MaxInProgress, 4)
	c.OrphanTimeout = cmp.Or(c.OrphanTimeout, 30*time.Minute)
	c.MaxRedrives = cmp.Or(c.MaxRedrives, 3)
	c.MaxRedrives = max(c.MaxRedrives, 0)
	if c.Holder == "" {
		host, _ := os.Hostname()
		c.Holder = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	c.LeaderTTL = cmp.Or(c.LeaderTTL, 3*c.Interval)
	c.PruneInterval = cmp.Or(c.PruneInterval, time.Hour)
	c.RecheckInterval = cmp.Or(c.RecheckInterval, time.Hour)
	return c
}

func (c Config) validate() error {
	switch {
	case c.Interval < 0:
		return errors.New("scheduler config: Interval must not be negative")
	case c.MaxInProgress < 1:
		return errors.New("scheduler config: MaxInProgress must be at least 1")
	case c.OrphanTimeout < 0:
		return errors.New("scheduler config: OrphanTimeout must not be negative")
	case c.PruneInterval < 0:
		return errors.New("scheduler config: PruneInterval must not be negative")
	case c.RecheckInterval < 0:
		return errors.New("scheduler config: RecheckInterval must not be negative")
	}
	return nil
}

// Scheduler starts due and queued jobs and cleans up orphans; see the package doc.
type Scheduler struct {
	cfg    Config
	store  store.Store
	jobs   jobs.Control // over store and the publisher of job messages
	logger *slog.Logger
	now    func() time.Time

	kicks chan struct{} // Kick's, one pending at most

	prune   pruneRun // the leader's background prune
	recheck pruneRun // the leader's background link recheck

	mu      sync.Mutex
	cancel  context.CancelFunc
	stopped chan struct{}
}

// New returns a Scheduler over st that publishes job messages with pub. It returns an error
// naming the bad Config field.
func New(cfg Config, st store.Store, pub harvest.Publisher, logger *slog.Logger) (*Scheduler, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Scheduler{cfg: cfg, store: st, jobs: jobs.Control{Store: st, Publisher: pub}, logger: logger, now: time.Now, kicks: make(chan struct{}, 1)}, nil
}

// Start runs ticks every Interval in the background until Stop or ctx ends. Starting a
// started scheduler does nothing.
func (s *Scheduler) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.stopped = make(chan struct{})
	go s.loop(ctx, s.stopped)
}

// Stop ends the ticks and the prune, waits for them and gives up leadership. Stopping a
// stopped or never started scheduler does nothing.
func (s *Scheduler) Stop() {
	defer s.stopRuns() // a run that a Tick called without Start began
	s.mu.Lock()
	cancel, stopped := s.cancel, s.stopped
	s.cancel, s.stopped = nil, nil
	s.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-stopped
	ctx, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	_ = s.store.LeaderRelease(ctx, &store.LeaderParams{Holder: s.cfg.Holder})
}

func (s *Scheduler) loop(ctx context.Context, stopped chan struct{}) {
	defer close(stopped)
	defer s.stopRuns()
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	for {
		if err := s.Tick(ctx); err != nil && ctx.Err() == nil {
			s.logger.Error("scheduler tick failed", "error", err)
		}
		for kicked := true; kicked; {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				kicked = false
			case <-s.kicks:
				if err := s.dispatchIfLeader(ctx); err != nil && ctx.Err() == nil {
					s.logger.Error("scheduler dispatch failed", "error", err)
				}
			}
		}
	}
}

// Kick asks a started scheduler to start queued jobs now rather than at its next tick: call it
// when a job was queued or has finished (the API's Deps.Queued; the pipeline calls it on every
// harvest report event). A kick starts queued jobs only (the leader's dispatch step), never
// waits, and kicks that arrive while one is pending are one kick; the ticks go on as before,
// so a lost kick costs at most one Interval.
func (s *Scheduler) Kick() {
	select {
	case s.kicks <- struct{}{}:
	default:
	}
}

// dispatchIfLeader is a Tick's dispatch step alone, if this scheduler is the leader.
func (s *Scheduler) dispatchIfLeader(ctx context.Context) error {
	leader, err := s.store.LeaderAcquire(ctx, &store.LeaderParams{Holder: s.cfg.Holder, TTL: s.cfg.LeaderTTL})
	if err != nil || !leader {
		return err
	}
	return s.dispatch(ctx)
}

// Tick does one round (see the package doc) if this scheduler is the leader, and nothing
// otherwise. It returns the errors met, joined; a failing step does not skip the others.
func (s *Scheduler) Tick(ctx context.Context) error {
	leader, err := s.store.LeaderAcquire(ctx, &store.LeaderParams{Holder: s.cfg.Holder, TTL: s.cfg.LeaderTTL})
	if err != nil || !leader {
		s.stopRuns() // another scheduler leads, or may: its prune is the one that runs
		return err
	}
	s.startPrune(ctx)
	return errors.Join(s.cleanOrphans(ctx), s.queueDue(ctx), s.dispatch(ctx))
}

// stopRuns ends the leader's background runs and waits for them.
func (s *Scheduler) stopRuns() {
	s.prune.stop()
	s.recheck.stop()
}

// Leader reports whether this scheduler holds leadership now (it acquires it if free).
func (s *Scheduler) Leader(ctx context.Context) (bool, error) {
	return s.store.LeaderAcquire(ctx, &store.LeaderParams{Holder: s.cfg.Holder, TTL: s.cfg.LeaderTTL})
}

// cleanOrphans re-drives each job in progress that stopped making progress: its messages may
// be lost with a worker that died or with a broker that lost acknowledged writes (JetStream
// syncs to disk lazily), and Postgres holds everything needed to run it again. The job message
// goes to EXTRACT again with the same job id; the stages are idempotent on (job, identifier),
// so the job converges to the counts of an uninterrupted run. After MaxRedrives re-drives
// without finishing, the job is ended as error (FailedJobCleanup) so its source can run again.
func (s *Scheduler) cleanOrphans(ctx context.Context) error {
	before := s.now().Add(-s.cfg.OrphanTimeout)
	orphans, err := s.store.JobListOrphaned(ctx, &store.JobListOrphanedParams{Before: before})
	if err != nil {
		return fmt.Errorf("list orphaned jobs: %w", err)
	}
	if len(orphans) == 0 {
		return nil
	}
	if err := s.busReady(ctx); err != nil {
		return fmt.Errorf("%d orphaned jobs wait for NATS to take job messages again (no re-drive counted): %w", len(orphans), err)
	}
	var errs []error
	for _, j := range orphans {
		job, redriven, err := s.jobs.Redrive(ctx, &store.JobRedriveParams{JobID: j.ID, Before: before, Max: s.cfg.MaxRedrives})
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue // deleted with its source meanwhile
		case err != nil: // a failed publish is tried again after another OrphanTimeout, counted
			errs = append(errs, fmt.Errorf("re-drive orphaned job %s: %w", j.ID, err))
		case redriven:
			s.logger.Warn("orphaned job re-driven", harvest.MetaJobID, j.ID, harvest.MetaSourceID, j.SourceID,
				"redrives", job.Redrives, "max_redrives", s.cfg.MaxRedrives)
		case job.Status == harvest.JobInProgress && job.Redrives >= s.cfg.MaxRedrives:
			errs = append(errs, s.failOrphan(ctx, job))
		}
	}
	return errors.Join(errs...)
}

// readyWait bounds one BusReady check: a broker that does not answer within it is not ready.
const readyWait = 10 * time.Second

// busReady is Config.BusReady within readyWait; nil without one.
func (s *Scheduler) busReady(ctx context.Context) error {
	if s.cfg.BusReady == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, readyWait)
	defer cancel()
	return s.cfg.BusReady(ctx)
}

// orphanAdvice ends the message of a job ended by orphan cleanup: what to look at before its
// source runs again.
const orphanAdvice = "Look in the workers' logs and exit statuses around the job's last heartbeat " +
	"(an out-of-memory kill, a restart or a deploy) before running it again; a source that takes a worker down " +
	"every time needs lower caps (--max-record-bytes, --job-window, --fetch-max-bytes) or a fix."

// failOrphan ends a job whose re-drives ran out and asks the aggregator to report it. Its
// message names the likely cause: the worker process crashed or was killed.
func (s *Scheduler) failOrphan(ctx context.Context, j *store.HarvestJob) error {
	msg := fmt.Sprintf("no progress for more than %s: the worker process running this job most likely crashed "+
		"or was killed; the job was ended so that its source can run again. %s", s.cfg.OrphanTimeout, orphanAdvice)
	if j.Redrives > 0 {
		msg = fmt.Sprintf("no progress for more than %s after the job was re-driven %d times from the database "+
			"(listed again from the source): the worker processes running it most likely crashed or were killed "+
			"each time (or its messages keep being lost); the job was ended so that its source can run again. %s",
			s.cfg.OrphanTimeout, j.Redrives, orphanAdvice)
	}
	job, err := s.jobs.Fail(ctx, j.ID, harvest.TypeFailedJobCleanup, msg)
	if job != nil {
		s.logger.Warn("orphaned job ended", harvest.MetaJobID, j.ID, harvest.MetaSourceID, j.SourceID, "redrives", j.Redrives)
	}
	if err != nil {
		return fmt.Errorf("orphaned job %s: %w", j.ID, err)
	}
	return nil
}

func (s *Scheduler) queueDue(ctx context.Context) error {
	now := s.now()
	due, err := s.store.SourceListDue(ctx, &store.SourceListDueParams{Now: now})
	if err != nil {
		return fmt.Errorf("list due sources: %w", err)
	}
	for _, src := range due {
		job, err := s.jobs.Enqueue(ctx, src.ID, harvest.JobHarvest)
		if err != nil && !errors.Is(err, jobs.ErrJobInProgress) {
			return err
		}
		next := NextRun(src.Frequency, *src.NextRunAt, now)
		if err := s.store.SourceScheduleNext(ctx, &store.SourceScheduleNextParams{SourceID: src.ID, NextRunAt: next}); err != nil {
			return fmt.Errorf("plan next run of %s: %w", src.ID, err)
		}
		if job != nil {
			s.logger.Info("scheduled job queued", harvest.MetaSourceID, src.ID, harvest.MetaJobID, job.ID)
		}
	}
	return nil
}

// NextRun returns the first run after now in the series planned..., planned+period, … of
// frequency f: the next run keeps to the plan instead of drifting with late ticks. It returns
// nil for a manual source.
func NextRun(f harvest.Frequency, planned, now time.Time) *time.Time {
	next := f.After(planned)
	if next.IsZero() {
		return nil
	}
	for !next.After(now) {
		next = f.After(next)
	}
	return &next
}

func (s *Scheduler) dispatch(ctx context.Context) error {
	// A job whose message cannot be sent (the broker is restarting) stays in progress in
	// Postgres: it has no heartbeat after this one, so orphan cleanup re-drives it, and fails
	// it only after MaxRedrives tries.
	_, err := s.jobs.StartQueued(ctx, s.cfg.MaxInProgress)
	return err
}
