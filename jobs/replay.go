package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/store"
)

// ErrReplayRefused is returned by Replay when the job's records must not be replayed: the job
// has not completed, or its source has had a newer job whose datasets a replay would overwrite.
var ErrReplayRefused = errors.New("replay refused")

// ErrReplayStage is returned by Replay for a stage whose failed messages are not records.
var ErrReplayStage = errors.New("unknown replay stage")

// replaySubjects maps each stage whose failed messages are records to the subject that stage
// consumes. EXTRACT, the listing and the aggregator fail whole jobs; there is nothing to replay.
// CHECK's failed messages are link checks, not records: replayLinkCheck sends them to
// harvest.SubjectCheck.
var replaySubjects = map[string]string{
	harvest.StageCompare:   harvest.SubjectCompare,
	harvest.StageTransform: harvest.SubjectTransform,
	harvest.StageValidate:  harvest.SubjectValidate,
	harvest.StageSync:      harvest.SubjectSync,
}

// ReplayStages lists the stages whose failed messages Replay sends again, in pipeline order:
// the record stages, then CHECK (its link checks).
func ReplayStages() []string {
	return []string{harvest.StageCompare, harvest.StageTransform, harvest.StageValidate, harvest.StageSync,
		harvest.StageCheck}
}

// ReplayInFlight is how long a record sent again by Replay counts as in flight: a second replay
// within it skips the record (its outcome is still to come); after it, the first replay counts
// as lost (the replaying process died before publishing) and the record is sent again.
const ReplayInFlight = time.Hour

// ReplayParams selects the failed messages Replay sends again.
type ReplayParams struct {
	// JobID is the job whose records are replayed; required.
	JobID string
	// Stage keeps only the records that failed in this stage (one of ReplayStages); "" keeps
	// all of them.
	Stage string
	// Since keeps only the messages stored on the failed subject at or after this time; zero
	// keeps every message the stream still holds (30 days).
	Since time.Time
}

// ReplayResult says what Replay did, in messages of the job on the failed subjects.
type ReplayResult struct {
	JobID string `json:"job_id"`
	// Found is how many of the job's failed messages matched the stage and time.
	Found int `json:"found"`
	// Replayed is how many messages were sent again, each to the stage where it failed: records,
	// and LinkChecks of them.
	Replayed int `json:"replayed"`
	// LinkChecks is how many of Replayed are link checks sent to CHECK (harvest.SubjectCheck;
	// left out of the JSON when 0), which settle nothing of the job: whoever runs CHECK checks
	// them (replayLinkCheck).
	LinkChecks int `json:"link_checks,omitempty"`
	// Skipped is Found minus Replayed: records whose outcome is no longer errored (a replay
	// already made them succeed), records replayed within ReplayInFlight whose outcome is still
	// to come, the same record failing more than once, job-level messages (extract,
	// listing, report) that carry no record, and link checks with no URL left to check.
	Skipped int `json:"skipped"`
	// Message, when nothing was replayed, says why and what to do instead (NothingToReplay).
	Message string `json:"message,omitempty"`
}

// Replay sends the job's records kept on harvest.v1.failed.<stage> through the pipeline
// again, each to the stage that gave up on it, once the cause is fixed, and the job's link
// checks that CHECK gave up on (harvest.v1.failed.check) to CHECK again (replayLinkCheck). Each record's errored
// outcome is re-opened first (store.Store.OutcomeReopen), so the aggregator counts its new
// outcome exactly once, in place of the errored one, although the job has finished: a record
// that now succeeds moves from errored to added or updated; one that fails again stays errored
// and its new StageError row replaces the old one. Running it twice, or twice at once,
// sends each record at most once while its outcome is in flight.
//
// It returns store.ErrNotFound (wrapped) for an unknown job, ErrReplayStage for a stage not in
// ReplayStages, ErrReplayRefused when the job is not complete or is not its source's
// newest job (checked once, before sending: a job of the source started while replayed records
// are in flight is not waited for). Replay only publishes: the stages (of this process or of workers) do the work,
// and store.Store.OutcomeReopenedCount tells when every replayed record has settled.
func (c Control) Replay(ctx context.Context, p *ReplayParams) (*ReplayResult, error) {
	if p.Stage != "" && !slices.Contains(ReplayStages(), p.Stage) {
		return nil, fmt.Errorf("%w %q: want one of %s", ErrReplayStage, p.Stage, strings.Join(ReplayStages(), ", "))
	}
	if c.Bus == nil {
		return nil, ErrNoBus
	}
	job, err := replayable(ctx, c.Store, p.JobID)
	if err != nil {
		return nil, err
	}
	res := &ReplayResult{JobID: p.JobID}
	err = c.Bus.ScanFailed(ctx, router.FailedFilter{JobID: p.JobID, Stage: p.Stage, Since: p.Since}, func(stage string, data []byte) error {
		res.Found++
		var sent bool
		var err error
		if stage == harvest.StageCheck {
			sent, err = c.replayLinkCheck(ctx, job, data)
			if sent {
				res.LinkChecks++
			}
		} else {
			sent, err = c.replayOne(ctx, p.JobID, stage, data)
		}
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
	if res.Replayed == 0 {
		res.Message = nothingSent(job, p, res)
	}
	return res, nil
}

// nothingSent says why a replay sent no record: the filter matched none, every message found
// was replayed already, or no stage gave up on a record of the job (NothingToReplay).
func nothingSent(job *store.HarvestJob, p *ReplayParams, res *ReplayResult) string {
	switch {
	case res.Found > 0:
		return fmt.Sprintf("Nothing to replay: the %d failed messages of job %s that match were replayed already "+
			"(their records settled, or are in flight for %v), carry no record, or are link checks whose URLs were "+
			"checked since", res.Found, job.ID, ReplayInFlight)
	case p.Stage != "" || !p.Since.IsZero():
		return fmt.Sprintf("Nothing to replay: no record of job %s failed in the stage and time asked for", job.ID)
	}
	return NothingToReplay(job)
}

// NothingToReplay says why a replay of job sends no record, and what to do instead: its
// errored records (if any) failed where a replay changes nothing (validation, a record the
// source sent broken), or were replayed already.
func NothingToReplay(job *store.HarvestJob) string {
	if job.Errored == 0 {
		return fmt.Sprintf("Nothing to replay: job %s has no errored records", job.ID)
	}
	return fmt.Sprintf("Nothing to replay: no stage gave up on the %d errored records of job %s (or they were "+
		"replayed already); they failed validation or were refused as the source sent them, and a replay "+
		"would not change them. Fix the source and run the harvest again, or change the source's schema or "+
		"SHACL profile: the next harvest validates every record again", job.Errored, job.ID)
}

// Replayable returns how many records Replay would send for the job now: the records of the
// job on the failed subjects of ReplayStages (the ones a stage gave up on) whose outcome is
// still errored, each counted once, less those a replay sent that are still in flight (their
// outcome is to come; a replay within ReplayInFlight skips them). 0 when every errored record failed where a replay changes
// nothing (validation, a record the source sent broken) or was replayed already. It reads the
// whole failed stream (kept 30 days) once. It returns Replay's refusals (ErrReplayRefused: the
// job is not complete, or not its source's newest; store.ErrNotFound) and ErrNoBus without a Bus.
func (c Control) Replayable(ctx context.Context, jobID string) (int, error) {
	if c.Bus == nil {
		return 0, ErrNoBus
	}
	if _, err := replayable(ctx, c.Store, jobID); err != nil {
		return 0, err
	}
	errored := map[string]bool{}
	err := c.Store.OutcomeErroredStream(ctx, jobID, func(key string) error { errored[key] = true; return nil })
	if err != nil || len(errored) == 0 {
		return 0, err
	}
	n := 0
	err = c.Bus.ScanFailed(ctx, router.FailedFilter{JobID: jobID}, func(stage string, data []byte) error {
		if rec, ok := failedRecord(stage, data); ok && errored[harvest.IdentifierKey(rec.Identifier)] {
			delete(errored, harvest.IdentifierKey(rec.Identifier))
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("count the replayable records of job %s: %w", jobID, err)
	}
	inFlight, err := c.Store.OutcomeReopenedCount(ctx, jobID)
	if err != nil {
		return 0, fmt.Errorf("count the replayed records of job %s in flight: %w", jobID, err)
	}
	return max(0, n-inFlight), nil
}

// failedRecord reads a message of a failed subject: a keyed record of a stage Replay sends
// records to, or false (a job-level message, a body that is gone).
func failedRecord(stage string, data []byte) (*harvest.Record, bool) {
	if _, ok := replaySubjects[stage]; !ok {
		return nil, false
	}
	var rec harvest.Record
	if err := harvest.Decode(harvest.NewRawMessage("", data), &rec); err != nil || rec.Identifier == "" {
		return nil, false
	}
	return &rec, true
}

// replayable checks that the job exists, has completed, and is its source's newest job, and
// returns it.
func replayable(ctx context.Context, st store.Store, jobID string) (*store.HarvestJob, error) {
	job, err := st.JobGet(ctx, jobID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("harvest job %q: %w", jobID, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get job %s: %w", jobID, err)
	}
	if job.Status != harvest.JobComplete {
		return nil, fmt.Errorf("%w: job %s is %s; only the records of a complete job are replayed", ErrReplayRefused,
			job.ID, job.Status)
	}
	newest, _, err := st.JobList(ctx, &store.JobListParams{SourceID: job.SourceID, PageParams: store.PageParams{Limit: 1}})
	if err != nil {
		return nil, fmt.Errorf("list jobs of source %s: %w", job.SourceID, err)
	}
	if len(newest) == 1 && newest[0].ID != job.ID {
		n := newest[0]
		return nil, fmt.Errorf("%w: the source has a newer job, %s (%s, %s, created %s); replaying job %s would "+
			"overwrite the datasets it wrote. Run a harvest of the source instead", ErrReplayRefused, n.ID, n.JobType,
			n.Status, n.CreatedAt.UTC().Format(time.RFC3339), job.ID)
	}
	return job, nil
}

// replayOne re-opens the record's errored outcome and sends it to the stage where it failed.
// It reports whether the record was sent.
func (c Control) replayOne(ctx context.Context, jobID, stage string, data []byte) (bool, error) {
	rec, ok := failedRecord(stage, data)
	if !ok {
		return false, nil // a job-level message (the job failed, not a record), or no keyed record
	}
	reopened, err := c.Store.OutcomeReopen(ctx, &store.OutcomeReopenParams{JobID: jobID,
		Key: harvest.IdentifierKey(rec.Identifier), Validated: rec.Validated, StaleBefore: time.Now().Add(-ReplayInFlight)})
	if err != nil {
		return false, fmt.Errorf("re-open %q: %w", rec.Identifier, err)
	}
	if !reopened {
		return false, nil
	}
	rec.Replay = true
	subject := replaySubjects[stage]
	m, err := harvest.RecordMessage(subject, rec)
	if err == nil {
		err = c.Bus.Publisher().Publish(subject, m)
	}
	if err != nil {
		return false, fmt.Errorf("send %q again (it stays re-opened, and a replay after %v sends it again): %w",
			rec.Identifier, ReplayInFlight, err)
	}
	return true, nil
}

// replayLinkCheck sends a LinkCheck of job that CHECK gave up on to CHECK again, with those of
// its URLs that have no stored check made since the job was created (the URLs CHECK would
// check for the job): none left (a replay, a later message or the job's settling checked
// them since), a source that no longer checks its links or is gone, or a body that is no
// LinkCheck sends nothing and reports false. CHECK settles nothing of the job, so nothing is
// re-opened: a second replay while the first's checks are queued sends them again, and CHECK
// requests each URL once (a URL checked since the job's creation is not due).
func (c Control) replayLinkCheck(ctx context.Context, job *store.HarvestJob, data []byte) (bool, error) {
	var lc harvest.LinkCheck
	if err := harvest.Decode(harvest.NewRawMessage("", data), &lc); err != nil || len(lc.URLs) == 0 {
		return false, nil
	}
	src, err := c.Store.SourceGet(ctx, job.SourceID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("get source %s: %w", job.SourceID, err)
	}
	if !harvest.LinkChecksOn(src.Options) {
		return false, nil
	}
	stored, err := c.Store.LinkResultGet(ctx, lc.URLs)
	if err != nil {
		return false, fmt.Errorf("read the stored checks of a link check of job %s: %w", job.ID, err)
	}
	lc.URLs = slices.DeleteFunc(slices.Clone(lc.URLs), func(u string) bool {
		r := stored[u]
		return r != nil && !r.CheckedAt.Before(job.CreatedAt)
	})
	if len(lc.URLs) == 0 {
		return false, nil
	}
	lc.JobID, lc.SourceID = job.ID, job.SourceID
	m, err := harvest.LinkCheckMessage(&lc)
	if err == nil {
		err = c.Bus.Publisher().Publish(harvest.SubjectCheck, m)
	}
	if err != nil {
		return false, fmt.Errorf("send a link check of job %s again: %w", job.ID, err)
	}
	return true, nil
}
