package sqlstore

import (
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/store"
)

// jobStatsInProgress sums the jobs in progress: how many, their expected and settled outcomes,
// the oldest start and the stalest heartbeat (a job that never beat counts from its start).
const jobStatsInProgress = `SELECT count(*), COALESCE(sum(records_expected), 0), COALESCE(sum(records_settled), 0),
	min(date_created), min(COALESCE(heartbeat_at, date_created))
	FROM harvest_job WHERE status = 'in_progress'`

// jobStatsLatest groups the sources by the status of their latest finished job (latest by
// date_created, then id, as JobFetchLatest orders), with the latest finish in each group.
const jobStatsLatest = `SELECT j.status, count(*), max(j.date_finished) FROM harvest_job j
	WHERE j.status IN ('complete', 'error') AND NOT EXISTS (SELECT 1 FROM harvest_job k
		WHERE k.harvest_source_id = j.harvest_source_id AND k.status IN ('complete', 'error')
			AND (k.date_created > j.date_created OR (k.date_created = j.date_created AND k.id > j.id)))
	GROUP BY j.status`

// jobStatsStreak is the longest run of failed jobs of any source since its latest complete one.
const jobStatsStreak = `SELECT COALESCE(max(n), 0) FROM (SELECT count(*) AS n FROM harvest_job j
	WHERE j.status = 'error' AND NOT EXISTS (SELECT 1 FROM harvest_job k
		WHERE k.harvest_source_id = j.harvest_source_id AND k.status = 'complete' AND k.date_created > j.date_created)
	GROUP BY j.harvest_source_id) streaks`

// JobStats implements store.Store.
func (s *Store) JobStats(ctx context.Context) (*store.JobStats, error) {
	var st store.JobStats
	var expected, settled int64
	err := s.q.QueryRow(ctx, jobStatsInProgress).Scan(&st.InProgress, &expected, &settled,
		s.scan.NullTime(&st.OldestStart), s.scan.NullTime(&st.StalestHeartbeat))
	if err != nil {
		return nil, fmt.Errorf("job stats in progress: %w", err)
	}
	st.InProgressExpected, st.InProgressSettled = int(expected), int(settled)
	rows := s.q.Query(ctx, jobStatsLatest)
	err = Each(rows, func(r Row) (store.SourceLatestJobs, error) {
		var l store.SourceLatestJobs
		err := r.Scan(&l.Status, &l.Sources, s.scan.NullTime(&l.LastFinished))
		return l, err
	}, func(l store.SourceLatestJobs) error {
		st.Latest = append(st.Latest, l)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("job stats latest: %w", err)
	}
	if err := s.q.QueryRow(ctx, jobStatsStreak).Scan(&st.MaxFailedStreak); err != nil {
		return nil, fmt.Errorf("job stats streak: %w", err)
	}
	return &st, nil
}
