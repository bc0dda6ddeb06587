package check

import (
	"context"
	"fmt"
	"hash/maphash"
	"log/slog"
	"slices"
	"time"

	"github.com/harvester-dev/harvester/harvest"
)

// RecheckStore is what a Rechecker reads and writes; quality/assess.StageStore implements it.
type RecheckStore interface {
	// LinkCheckSources returns the ids of the sources that check their links.
	LinkCheckSources(ctx context.Context) ([]string, error)
	SourceLinkURLs(ctx context.Context, sourceID string) ([]string, error)
	LinkCheckedAt(ctx context.Context, urls []string) (map[string]time.Time, error)
	// LinkPrune drops the stored checks of URLs no live dataset uses (store.Store.LinkResultPrune).
	LinkPrune(ctx context.Context) (int, error)
}

// RecheckBatch is how many URLs one LinkCheck of a Rechecker names.
const RecheckBatch = 100

// Rechecker queues the link checks gone stale: the scheduler's leader runs it every hour (its
// Prune, scheduler.Config.Rechecker). A run drops the stored checks of URLs that no live dataset
// uses any more, then, source by source (those that check their links), sends CHECK a LinkCheck
// (harvest.SubjectCheck) for the distribution URLs whose stored check is missing or older than
// Recheck, RecheckBatch at a time, each URL once per run however many sources share it. A URL
// still queued from the run before is sent again: CHECK checks it once (it is no longer due).
type Rechecker struct {
	st      RecheckStore
	pub     harvest.Publisher
	recheck time.Duration
	logger  *slog.Logger
}

// NewRechecker returns a Rechecker that publishes with pub the URLs of st older than recheck
// (more than 0).
func NewRechecker(st RecheckStore, pub harvest.Publisher, recheck time.Duration, logger *slog.Logger) (*Rechecker, error) {
	if recheck <= 0 {
		return nil, fmt.Errorf("link recheck %v: want a positive duration", recheck)
	}
	return &Rechecker{st: st, pub: pub, recheck: recheck, logger: logger}, nil
}

// Prune runs once with now as the clock (the scheduler's Pruner contract), stopping when ctx
// ends. It returns the first error; the URLs queued before it stay queued.
func (r *Rechecker) Prune(ctx context.Context, now time.Time) error {
	dropped, err := r.st.LinkPrune(ctx)
	if err != nil {
		return fmt.Errorf("drop unused link checks: %w", err)
	}
	sources, err := r.st.LinkCheckSources(ctx)
	if err != nil {
		return err
	}
	seed, seen := maphash.MakeSeed(), map[uint64]bool{}
	queued := 0
	for _, id := range sources {
		urls, err := r.st.SourceLinkURLs(ctx, id)
		if err != nil {
			return err
		}
		var fresh []string
		for _, u := range urls {
			if h := maphash.String(seed, u); !seen[h] {
				seen[h] = true
				fresh = append(fresh, u)
			}
		}
		n, err := r.queueStale(ctx, id, fresh, now.Add(-r.recheck))
		queued += n
		if err != nil {
			return err
		}
	}
	if queued > 0 || dropped > 0 {
		r.logger.Info("link recheck", "queued", queued, "dropped_unused", dropped)
	}
	return nil
}

// queueStale sends the URLs of urls (the source's) checked before cutoff, or never; it returns
// how many.
func (r *Rechecker) queueStale(ctx context.Context, sourceID string, urls []string, cutoff time.Time) (int, error) {
	n := 0
	for chunk := range slices.Chunk(urls, 1000) {
		checked, err := r.st.LinkCheckedAt(ctx, chunk)
		if err != nil {
			return n, err
		}
		var stale []string
		for _, u := range chunk {
			if t, ok := checked[u]; !ok || t.Before(cutoff) {
				stale = append(stale, u)
			}
		}
		for batch := range slices.Chunk(stale, RecheckBatch) {
			m, err := harvest.LinkCheckMessage(&harvest.LinkCheck{SourceID: sourceID, URLs: batch})
			if err != nil {
				return n, err
			}
			if err := r.pub.Publish(harvest.SubjectCheck, m); err != nil {
				return n, fmt.Errorf("queue stale link checks: %w", err)
			}
			n += len(batch)
		}
	}
	return n, nil
}
