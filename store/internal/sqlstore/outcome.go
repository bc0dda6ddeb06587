package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// OutcomeColumn is the harvest_job counter of each outcome.
var OutcomeColumn = map[harvest.Outcome]string{
	harvest.OutcomeAdded: "records_added", harvest.OutcomeUpdated: "records_updated",
	harvest.OutcomeDeleted: "records_deleted", harvest.OutcomeUnchanged: "records_unchanged",
	harvest.OutcomeErrored: "records_errored",
}

// ReopenedSQL are a backend's statements for SettleReopened, each taking the arguments named.
type ReopenedSQL struct {
	// Select (job, key) reads the outcome and validated of the key when it is re-opened
	// (replay_at set), locking its row where the dialect needs it; no row when it is not.
	Select string
	// Replace (job, key, outcome, validated) sets the key's new outcome and clears replay_at.
	Replace string
	// DeleteErrors (job, key) deletes the key's error rows.
	DeleteErrors string
	// Count (job, validated delta) adds the delta to records_validated; its %s, right after
	// that, takes the moves of the outcome counters. It returns the job's row (jobColumns).
	Count string
}

// SettleReopened replaces the outcome of a key re-opened for replay with p's, moving the job's
// counts, and deletes the key's old error rows, all on q (the settling transaction). It
// returns nil (and changes nothing) when the key is not re-opened: then it has simply settled
// already.
func (s *Scanner) SettleReopened(ctx context.Context, q Querier, stmt *ReopenedSQL, p *store.OutcomeSettleParams) (*store.HarvestJob, error) {
	var old harvest.Outcome
	var oldValidated *bool
	err := q.QueryRow(ctx, stmt.Select, p.JobID, p.Key).Scan(&old, &oldValidated)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := q.Exec(ctx, stmt.Replace, p.JobID, p.Key, p.Outcome, p.Validated); err != nil {
		return nil, err
	}
	if _, err := q.Exec(ctx, stmt.DeleteErrors, p.JobID, p.Key); err != nil {
		return nil, err
	}
	delta := 0
	if p.Validated {
		delta++
	}
	if oldValidated != nil && *oldValidated {
		delta--
	}
	move := ""
	if oldCol, col := OutcomeColumn[old], OutcomeColumn[p.Outcome]; oldCol != col {
		move = fmt.Sprintf(", %[1]s = %[1]s - 1, %[2]s = %[2]s + 1", oldCol, col)
	}
	return s.Job(q.QueryRow(ctx, fmt.Sprintf(stmt.Count, move), p.JobID, delta))
}
