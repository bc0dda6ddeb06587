// Package replay sends the records a stage gave up on (kept on harvest.v1.failed.<stage>)
// through the pipeline again, once the cause is fixed: `harvester replay` and
// POST /api/v1/harvest_jobs/{id}/replay. It checks the job in the store and publishes on the
// bus; the stages (of this process or of workers) do the work.
package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/store"
)

// ErrRefused is returned by Run when the job's records must not be replayed: the job
// has not completed, or its source has had a newer job whose datasets a replay would overwrite.
var ErrRefused = errors.New("replay refused")

// ErrStage is returned by Run for a stage whose failed messages are not records.
var ErrStage = errors.New("unknown replay stage")

// replaySubjects maps each stage whose failed messages are records to the subject that stage
// consumes. EXTRACT, the listing and the aggregator fail whole jobs; there is nothing to replay.
var replaySubjects = map[string]string{
	harvest.StageCompare:   harvest.SubjectCompare,
	harvest.StageTransform: harvest.SubjectTransform,
	harvest.StageValidate:  harvest.SubjectValidate,
	harvest.StageSync:      harvest.SubjectSync,
}

// Stages lists the stages whose failed records Run sends again, in pipeline order.
func Stages() []string {
	return []string{harvest.StageCompare, harvest.StageTransform, harvest.StageValidate, harvest.StageSync}
}

// InFlight is how long a record sent again by Run counts as in flight: a second replay
// within it skips the record (its outcome is still to come); after it, the first replay counts
// as lost (the replaying process died before publishing) and the record is sent again.
const InFlight = time.Hour

// Params selects the failed messages Run sends again.
type Params struct {
	// JobID is the job whose records are replayed; required.
	JobID string
	// Stage keeps only the records that failed in this stage (one of Stages); "" keeps
	// all of them.
	Stage string
	// Since keeps only the messages stored on the failed subject at or after this time; zero
	// keeps every message the stream still holds (30 days).
	Since time.Time
}

// Result says what Run did, in messages of the job on the failed subjects.
type Result struct {
	JobID string `json:"job_id"`
	// Found is how many of the job's failed messages matched the stage and time.
	Found int `json:"found"`
	// Replayed is how many records were sent again, each to the stage where it failed.
	Replayed int `json:"replayed"`
	// Skipped is Found minus Replayed: records whose outcome is no longer errored (a replay
	// already made them succeed), records replayed within InFlight whose outcome is still
	// to come, the same record failing more than once, and job-level messages (extract,
	// listing, report) that carry no record.
	Skipped int `json:"skipped"`
}

// Run sends the job's records kept on harvest.v1.failed.<stage> through the pipeline
// again, each to the stage that gave up on it, once the cause is fixed. Each record's errored
// outcome is re-opened first (store.Store.OutcomeReopen), so the aggregator counts its new
// outcome exactly once, in place of the errored one, although the job has finished: a record
// that now succeeds moves from errored to added or updated; one that fails again stays errored
// and its new StageError row replaces the old one. Running it twice, or twice at once,
// sends each record at most once while its outcome is in flight.
//
// It returns store.ErrNotFound (wrapped) for an unknown job, ErrStage for a stage not in
// ReplayStages, and ErrRefused when the job is not complete or is not its source's
// newest job (checked once, before sending: a job of the source started while replayed records
// are in flight is not waited for). Run only publishes: the stages (of this process or of workers) do the work,
// and store.Store.OutcomeReopenedCount tells when every replayed record has settled.
func Run(ctx context.Context, bus *router.Bus, st store.Store, p *Params) (*Result, error) {
	if p.Stage != "" && !slices.Contains(Stages(), p.Stage) {
		return nil, fmt.Errorf("%w %q: want one of %s", ErrStage, p.Stage, strings.Join(Stages(), ", "))
	}
	if err := replayable(ctx, st, p.JobID); err != nil {
		return nil, err
	}
	res := &Result{JobID: p.JobID}
	err := bus.ScanFailed(ctx, router.FailedFilter{JobID: p.JobID, Stage: p.Stage, Since: p.Since}, func(stage string, data []byte) error {
		res.Found++
		sent, err := replayOne(ctx, bus, st, p.JobID, stage, data)
		if sent {
			res.Replayed++
		} else {
			res.Skipped++
		}
		return err
	})
	if err != nil {
		return res, fmt.Errorf("replay job %s: %w", p.JobID, err)
	}
	return res, nil
}

// replayable checks that the job exists, has completed, and is its source's newest job.
func replayable(ctx context.Context, st store.Store, jobID string) error {
	job, err := st.JobGet(ctx, jobID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("harvest job %q: %w", jobID, store.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("get job %s: %w", jobID, err)
	}
	if job.Status != harvest.JobComplete {
		return fmt.Errorf("%w: job %s is %s; only the records of a complete job are replayed", ErrRefused,
			job.ID, job.Status)
	}
	newest, _, err := st.JobList(ctx, &store.JobListParams{SourceID: job.SourceID, PageParams: store.PageParams{Limit: 1}})
	if err != nil {
		return fmt.Errorf("list jobs of source %s: %w", job.SourceID, err)
	}
	if len(newest) == 1 && newest[0].ID != job.ID {
		n := newest[0]
		return fmt.Errorf("%w: the source has a newer job, %s (%s, %s, created %s); replaying job %s would "+
			"overwrite the datasets it wrote. Run a harvest of the source instead", ErrRefused, n.ID, n.JobType,
			n.Status, n.CreatedAt.UTC().Format(time.RFC3339), job.ID)
	}
	return nil
}

// replayOne re-opens the record's errored outcome and sends it to the stage where it failed.
// It reports whether the record was sent.
func replayOne(ctx context.Context, bus *router.Bus, st store.Store, jobID, stage string, data []byte) (bool, error) {
	subject, ok := replaySubjects[stage]
	if !ok {
		return false, nil // a job-level message: the job failed, not a record
	}
	var rec harvest.Record
	if err := harvest.Decode(message.NewMessage("", data), &rec); err != nil || rec.Identifier == "" {
		return false, nil // not a keyed record: nothing to re-open
	}
	reopened, err := st.OutcomeReopen(ctx, &store.OutcomeReopenParams{JobID: jobID,
		Key: harvest.IdentifierKey(rec.Identifier), Validated: rec.Validated, StaleBefore: time.Now().Add(-InFlight)})
	if err != nil {
		return false, fmt.Errorf("re-open %q: %w", rec.Identifier, err)
	}
	if !reopened {
		return false, nil
	}
	rec.Replay = true
	m, err := harvest.RecordMessage(subject, &rec)
	if err == nil {
		err = bus.Publisher().Publish(subject, m)
	}
	if err != nil {
		return false, fmt.Errorf("send %q again (it stays re-opened, and a replay after %v sends it again): %w",
			rec.Identifier, InFlight, err)
	}
	return true, nil
}
