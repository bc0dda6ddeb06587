package jobs

import (
	"context"
	"time"

	"github.com/harvester-dev/harvester/harvest"
)

// AwaitReport waits for the report event of job jobID on reports (a subscription to the
// aggregator's report events, router.Bus.Reports), skipping other jobs' events. It returns the
// event, or nil when none came within wait or ctx ended first.
func AwaitReport(ctx context.Context, reports <-chan *harvest.Report, jobID string, wait time.Duration) *harvest.Report {
	grace := time.NewTimer(wait)
	defer grace.Stop()
	for {
		select {
		case rep := <-reports:
			if rep.JobID == jobID {
				return rep
			}
		case <-grace.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}
