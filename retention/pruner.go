package retention

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/store"
)

// DefaultRetention is the retention of `--retention` when none is given: 90 days, the age past
// which Data.gov's cleaning script for Harvesting 2.0 drops records the catalog no longer uses.
const DefaultRetention = 90 * 24 * time.Hour

// Store is what a Pruner needs of the store.
type Store interface {
	RecordPrune(ctx context.Context, p *store.PruneParams) (*store.Pruned, error)
	JobPrune(ctx context.Context, p *store.PruneParams) (*store.Pruned, error)
}

// Config configures a Pruner.
type Config struct {
	// Retention is how long the history is kept: a record version superseded longer ago, a job
	// finished longer ago, may go. 0 keeps everything: Run prunes nothing.
	Retention time.Duration
	// KeepJobs is how many of each source's newest jobs are kept whatever their age. 0:
	// store.DefaultKeepJobs (20).
	KeepJobs int
	// BatchSize is how many rows one store call examines and one statement deletes at most. 0:
	// store.DefaultPruneLimit (1,000).
	BatchSize int
}

func (c Config) validate() error {
	switch {
	case c.Retention < 0:
		return errors.New("retention config: Retention must not be negative (0 keeps everything)")
	case c.KeepJobs < 0:
		return errors.New("retention config: KeepJobs must not be negative")
	case c.BatchSize < 0:
		return errors.New("retention config: BatchSize must not be negative")
	}
	return nil
}

// Interval is how often a scheduler runs a Pruner of retention r: every hour, or every
// twenty-fourth of r when that is shorter (a short retention is a test's), and at least every
// second. 0 for r = 0: never.
func Interval(r time.Duration) time.Duration {
	if r <= 0 {
		return 0
	}
	return min(time.Hour, max(r/24, time.Second))
}

// Pruner prunes the history of a store; see the package doc. Its Run may be called from one
// goroutine at a time.
type Pruner struct {
	cfg    Config
	store  Store
	logger *slog.Logger
	pruned *prometheus.CounterVec
}

// New returns a Pruner of st. reg receives harvester_pruned_rows_total{table}, the rows runs
// deleted by table (store.PruneTables; dry runs count nothing there); nil registers nothing.
// It returns an error naming a bad Config field, or the registration's.
func New(cfg Config, st Store, logger *slog.Logger, reg prometheus.Registerer) (*Pruner, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	p := &Pruner{cfg: cfg, store: st, logger: logger,
		pruned: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "harvester_pruned_rows_total",
			Help: "Rows of the history deleted by the retention (--retention), by table."}, []string{"table"})}
	for _, t := range store.PruneTables {
		p.pruned.WithLabelValues(t)
	}
	if reg != nil {
		if err := reg.Register(p.pruned); err != nil {
			return nil, fmt.Errorf("register retention metrics: %w", err)
		}
	}
	return p, nil
}

// Report is what one Run deleted (or, in a dry run, would delete).
type Report struct {
	// Retention is the Config's; Before is now minus it, the cutoff (zero when Retention is 0).
	Retention time.Duration `json:"-"`
	Before    time.Time     `json:"before"`
	DryRun    bool          `json:"dry_run"`
	// Rows counts the rows by table, every one of store.PruneTables.
	Rows map[string]int `json:"rows"`
}

// Total is the number of rows of every table.
func (r *Report) Total() int {
	n := 0
	for _, v := range r.Rows {
		n += v
	}
	return n
}

// Run prunes the history with now as the clock (the cutoff is now minus Config.Retention):
// every record the retention no longer keeps, then every job, in calls of at most BatchSize
// rows. With dryRun it deletes nothing and reports what a run would delete. When ctx ends or a
// call fails it stops and returns the error with what it had deleted: the next run goes on
// from the start (a batch is one transaction, so nothing is left half done).
func (p *Pruner) Run(ctx context.Context, now time.Time, dryRun bool) (*Report, error) {
	rep := &Report{Retention: p.cfg.Retention, DryRun: dryRun, Rows: map[string]int{}}
	for _, t := range store.PruneTables {
		rep.Rows[t] = 0
	}
	if p.cfg.Retention == 0 {
		return rep, nil
	}
	rep.Before = now.Add(-p.cfg.Retention)
	params := store.PruneParams{Before: rep.Before, Limit: p.cfg.BatchSize, KeepJobs: p.cfg.KeepJobs, DryRun: dryRun}
	for _, step := range []struct {
		what string
		call func(context.Context, *store.PruneParams) (*store.Pruned, error)
	}{{"records", p.store.RecordPrune}, {"jobs", p.store.JobPrune}} {
		if err := p.pass(ctx, params, step.call, rep); err != nil {
			return rep, fmt.Errorf("prune %s: %w", step.what, err)
		}
	}
	return rep, nil
}

// pass runs call from the first id to the last, adding its rows to rep (and, unless dry, to
// the metric).
func (p *Pruner) pass(ctx context.Context, params store.PruneParams,
	call func(context.Context, *store.PruneParams) (*store.Pruned, error), rep *Report,
) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := call(ctx, &params)
		if err != nil {
			return err
		}
		for t, n := range res.Rows {
			rep.Rows[t] += n
			if !params.DryRun && n > 0 {
				p.pruned.WithLabelValues(t).Add(float64(n))
			}
		}
		if res.Next == "" {
			return nil
		}
		params.After = res.Next
	}
}

// Prune is a Run that deletes, for the scheduler's leader (scheduler.Pruner): it logs what it
// deleted, when anything, at info level.
func (p *Pruner) Prune(ctx context.Context, now time.Time) error {
	start := time.Now()
	rep, err := p.Run(ctx, now, false)
	if n := rep.Total(); n > 0 {
		args := []any{"before", rep.Before, "duration", time.Since(start).Round(time.Millisecond)}
		for _, t := range store.PruneTables {
			args = append(args, t, rep.Rows[t])
		}
		p.logger.Info("history pruned", args...)
	}
	return err
}
