package harvest

import (
	"context"
	"encoding/json"
	"fmt"
)

// FailJob ends a job in error with a job error of type StageError and the given message
// (store.Store.JobFail); the pipeline passes one over its store to each stage's give-up hook.
type FailJob func(ctx context.Context, jobID, reason string) error

// GiveUp is a stage's rule for a message it gave up on for good (after its retries, or a
// permanent error), once the transport has kept the message on SubjectFailedPrefix + Stage.
// Its Settle method is the stage's give-up hook: it returns what ends the work of the
// message so that the job's counts stay exact:
//
//   - a message without a job id: nothing (it stays on the failed subject);
//   - a job-level message (no identifier: a job, a listing), or any message of a JobOnly
//     stage: the job fails (FailJob), and, unless JobOnly, a SettledFailed message asks the
//     aggregator to report it;
//   - a record: an errored outcome with one StageError row, under the record's harvest_record
//     id unless NoRecordRow or the job is a validate job (neither has such a row).
type GiveUp struct {
	// Stage names the stage in the reasons ("<stage> stage failed: <cause>").
	Stage string
	// NoRecordRow: the stage runs before the record's harvest_record row exists.
	NoRecordRow bool
	// JobOnly: the stage is the aggregator; a message it cannot count fails its job, and
	// nothing is published (the aggregator is what would count it).
	JobOnly bool
	// Reason words the error from the cause; default "<Stage> stage failed: <cause>".
	Reason func(cause error) string
	// FailJob ends the job; required.
	FailJob FailJob
}

// Settle is the give-up hook: see GiveUp. An error (the job could not be failed) leaves the
// message to be redelivered.
func (g GiveUp) Settle(msg *Message, cause error) ([]*Message, error) {
	var env struct {
		JobID      string  `json:"job_id"`
		RecordID   string  `json:"record_id"`
		Identifier string  `json:"identifier"`
		JobType    JobType `json:"job_type"`
		Validated  bool    `json:"validated"`
		// Transformed is what TRANSFORM made of a record that failed later: kept with its outcome.
		Transformed RawText `json:"transformed"`
	}
	payload, transformed := envelopeOf(msg.Payload)
	if json.Unmarshal(payload, &env) != nil || env.JobID == "" {
		return nil, nil // nothing to settle: the message is on the failed subject
	}
	if transformed != nil {
		env.Transformed = transformed
	}
	reason := fmt.Sprintf("%s stage failed: %v", g.Stage, cause)
	if g.Reason != nil {
		reason = g.Reason(cause)
	}
	if env.Identifier == "" || g.JobOnly {
		if err := g.FailJob(msg.Context(), env.JobID, reason); err != nil {
			return nil, fmt.Errorf("fail job after %s failure: %w", g.Stage, err)
		}
		if g.JobOnly {
			return nil, nil
		}
		return Settle(SettleFailed(env.JobID))
	}
	recordID := env.RecordID
	if env.JobType == JobValidate || g.NoRecordRow {
		recordID = ""
	}
	s := SettleIdentifier(env.JobID, env.Identifier, OutcomeErrored,
		RecordError{Type: TypeStageError, Message: reason, Severity: SeverityError})
	s.RecordID, s.Status, s.Validated, s.Transformed = recordID, RecordFailed, env.Validated, env.Transformed
	return Settle(s)
}
