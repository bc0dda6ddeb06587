package router

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// ErrReplayRefused is returned by Replay when the job's records must not be replayed: the job
// has not completed, or its source has had a newer job whose datasets a replay would overwrite.
var ErrReplayRefused = errors.New("replay refused")

// ErrReplayStage is returned by Replay for a stage whose failed messages are not records.
var ErrReplayStage = errors.New("unknown replay stage")

// replaySubjects maps each stage whose failed messages are records to the subject that stage
// consumes. EXTRACT, the listing and the aggregator fail whole jobs; there is nothing to replay.
var replaySubjects = map[string]string{
	StageCompare:   harvest.SubjectCompare,
	StageTransform: harvest.SubjectTransform,
	StageValidate:  harvest.SubjectValidate,
	StageSync:      harvest.SubjectSync,
}

// ReplayStages lists the stages whose failed records Replay sends again, in pipeline order.
func ReplayStages() []string {
	return []string{StageCompare, StageTransform, StageValidate, StageSync}
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
	// Replayed is how many records were sent again, each to the stage where it failed.
	Replayed int `json:"replayed"`
	// Skipped is Found minus Replayed: records whose outcome is no longer errored (a replay
	// already made them succeed), records replayed within ReplayInFlight whose outcome is still
	// to come, the same record failing more than once, and job-level messages (extract,
	// listing, report) that carry no record.
	Skipped int `json:"skipped"`
}

// Replay sends the job's records kept on harvest.v1.failed.<stage> through the pipeline
// again, each to the stage that gave up on it, once the cause is fixed. Each record's errored
// outcome is re-opened first (store.Store.OutcomeReopen), so the aggregator counts its new
// outcome exactly once, in place of the errored one, although the job has finished: a record
// that now succeeds moves from errored to added or updated; one that fails again stays errored
// and its new StageError row replaces the old one. Running Replay twice, or twice at once,
// sends each record at most once while its outcome is in flight.
//
// It returns store.ErrNotFound (wrapped) for an unknown job, ErrReplayStage for a stage not in
// ReplayStages, and ErrReplayRefused when the job is not complete or is not its source's
// newest job (checked once, before sending: a job of the source started while replayed records
// are in flight is not waited for). Replay only publishes: the stages (of this process or of workers) do the work,
// and store.Store.OutcomeReopenedCount tells when every replayed record has settled.
func (b *Bus) Replay(ctx context.Context, st store.Store, p *ReplayParams) (*ReplayResult, error) {
	if p.Stage != "" && !slices.Contains(ReplayStages(), p.Stage) {
		return nil, fmt.Errorf("%w %q: want one of %s", ErrReplayStage, p.Stage, strings.Join(ReplayStages(), ", "))
	}
	if err := replayable(ctx, st, p.JobID); err != nil {
		return nil, err
	}
	res := &ReplayResult{JobID: p.JobID}
	err := b.scanFailed(ctx, p, func(stage string, data []byte) error {
		res.Found++
		sent, err := b.replayOne(ctx, st, p.JobID, stage, data)
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
		return fmt.Errorf("%w: job %s is %s; only the records of a complete job are replayed", ErrReplayRefused,
			job.ID, job.Status)
	}
	newest, _, err := st.JobList(ctx, &store.JobListParams{SourceID: job.SourceID, PageParams: store.PageParams{Limit: 1}})
	if err != nil {
		return fmt.Errorf("list jobs of source %s: %w", job.SourceID, err)
	}
	if len(newest) == 1 && newest[0].ID != job.ID {
		n := newest[0]
		return fmt.Errorf("%w: the source has a newer job, %s (%s, %s, created %s); replaying job %s would "+
			"overwrite the datasets it wrote. Run a harvest of the source instead", ErrReplayRefused, n.ID, n.JobType,
			n.Status, n.CreatedAt.UTC().Format(time.RFC3339), job.ID)
	}
	return nil
}

// scanFailed calls fn with the stage and body of every message of the job on the failed
// subjects that p selects, oldest first, up to the last message stored when the scan began
// (so records that fail again during the replay are not replayed in turn). It reads through
// an ephemeral consumer that acks nothing, so the stream keeps every message.
func (b *Bus) scanFailed(ctx context.Context, p *ReplayParams, fn func(stage string, data []byte) error) error {
	stream, err := b.js.Stream(ctx, StreamFailed)
	if err != nil {
		return fmt.Errorf("stream %s: %w", StreamFailed, err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("stream %s: %w", StreamFailed, err)
	}
	last := info.State.LastSeq
	if info.State.Msgs == 0 {
		return nil
	}
	cfg := jetstream.ConsumerConfig{FilterSubject: harvest.SubjectFailedPrefix + ">", AckPolicy: jetstream.AckNonePolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy, InactiveThreshold: time.Minute}
	if p.Stage != "" {
		cfg.FilterSubject = harvest.SubjectFailedPrefix + p.Stage
	}
	if !p.Since.IsZero() {
		since := p.Since.UTC()
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &since
	}
	cons, err := stream.CreateConsumer(ctx, cfg)
	if err != nil {
		return fmt.Errorf("read %s: %w", StreamFailed, err)
	}
	defer func() { _ = stream.DeleteConsumer(context.WithoutCancel(ctx), cons.CachedInfo().Name) }()
	if cons.CachedInfo().NumPending == 0 {
		return nil
	}
	for {
		batch, err := cons.Fetch(256, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return fmt.Errorf("read %s: %w", StreamFailed, err)
		}
		n, done := 0, false
		for msg := range batch.Messages() {
			n++
			meta, err := msg.Metadata()
			if err != nil {
				return fmt.Errorf("read %s: %w", StreamFailed, err)
			}
			if meta.Sequence.Stream > last {
				done = true
				continue
			}
			if msg.Headers().Get(harvest.MetaJobID) == p.JobID {
				data, err := b.pub.claims.body(ctx, msg.Headers(), msg.Data())
				if errors.Is(err, jetstream.ErrObjectNotFound) {
					data, err = nil, nil // its body is gone: counted as skipped
				}
				if err != nil {
					return fmt.Errorf("read %s: %w", StreamFailed, err)
				}
				if err := fn(strings.TrimPrefix(msg.Subject(), harvest.SubjectFailedPrefix), data); err != nil {
					return err
				}
			}
			if meta.NumPending == 0 || meta.Sequence.Stream >= last {
				done = true
			}
		}
		if err := batch.Error(); err != nil {
			return fmt.Errorf("read %s: %w", StreamFailed, err)
		}
		if done || n == 0 {
			return nil
		}
	}
}

// replayOne re-opens the record's errored outcome and sends it to the stage where it failed.
// It reports whether the record was sent.
func (b *Bus) replayOne(ctx context.Context, st store.Store, jobID, stage string, data []byte) (bool, error) {
	subject, ok := replaySubjects[stage]
	if !ok {
		return false, nil // a job-level message: the job failed, not a record
	}
	var rec harvest.Record
	if err := harvest.Decode(message.NewMessage("", data), &rec); err != nil || rec.Identifier == "" {
		return false, nil // not a keyed record: nothing to re-open
	}
	reopened, err := st.OutcomeReopen(ctx, &store.OutcomeReopenParams{JobID: jobID,
		Key: harvest.IdentifierKey(rec.Identifier), Validated: rec.Validated, StaleBefore: time.Now().Add(-ReplayInFlight)})
	if err != nil {
		return false, fmt.Errorf("re-open %q: %w", rec.Identifier, err)
	}
	if !reopened {
		return false, nil
	}
	rec.Replay = true
	m, err := harvest.RecordMessage(subject, &rec)
	if err == nil {
		err = b.pub.Publish(subject, m)
	}
	if err != nil {
		return false, fmt.Errorf("send %q again (it stays re-opened, and a replay after %v sends it again): %w",
			rec.Identifier, ReplayInFlight, err)
	}
	return true, nil
}
