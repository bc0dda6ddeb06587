package router

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// logIDs logs every handler error with the message's job, record and identifier, and each
// handled message at debug level.
func logIDs(logger *slog.Logger, stage string) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := h(msg)
			attrs := []any{"stage", stage, harvest.MetaJobID, msg.Metadata.Get(harvest.MetaJobID),
				harvest.MetaRecordID, msg.Metadata.Get(harvest.MetaRecordID),
				harvest.MetaIdentifier, msg.Metadata.Get(harvest.MetaIdentifier)}
			switch {
			case err != nil && msg.Context().Err() != nil:
				logger.Debug("stage interrupted by shutdown", append(attrs, "error", err)...)
			case err != nil:
				logger.Warn("stage failed", append(attrs, "error", err)...)
			default:
				logger.Debug("stage handled message", attrs...)
			}
			return out, err
		}
	}
}

// failurePolicy is the last word on a message whose handler still fails after its retries
// (or failed permanently). The message is kept on harvest.v1.failed.<stage> with the reason
// for replay; then a record settles as errored so the job's counts stay exact, and a job or
// listing message fails its job. The original message is acked: it has been dealt with.
func failurePolicy(st store.Store, pub message.Publisher, logger *slog.Logger, stage string) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := h(msg)
			if err == nil || msg.Context().Err() != nil {
				return out, err // a shutdown is not a failure: the message is redelivered
			}
			failed := msg.Copy()
			failed.Metadata.Set(harvest.MetaSubject, harvest.SubjectFailedPrefix+stage)
			failed.Metadata.Set(harvest.MetaReason, harvest.HeaderValue(err.Error()))
			if perr := pub.Publish(harvest.SubjectFailedPrefix+stage, failed); perr != nil {
				return nil, fmt.Errorf("%w (and keeping it on the failed subject: %v)", err, perr)
			}
			logger.Error("stage gave up on message", "stage", stage, "error", err,
				harvest.MetaJobID, msg.Metadata.Get(harvest.MetaJobID), harvest.MetaIdentifier, msg.Metadata.Get(harvest.MetaIdentifier))
			return settleFailure(msg.Context(), st, stage, msg, err)
		}
	}
}

// settleFailure returns what ends the work of a message that failed for good.
func settleFailure(ctx context.Context, st store.Store, stage string, msg *message.Message, cause error) ([]*message.Message, error) {
	var env struct {
		JobID      string          `json:"job_id"`
		RecordID   string          `json:"record_id"`
		Identifier string          `json:"identifier"`
		JobType    harvest.JobType `json:"job_type"`
		Validated  bool            `json:"validated"`
		// Transformed is what TRANSFORM made of a record that failed later: kept with its outcome.
		Transformed harvest.RawText `json:"transformed"`
	}
	if json.Unmarshal(msg.Payload, &env) != nil || env.JobID == "" {
		return nil, nil // nothing to settle: the message is on the failed subject
	}
	reason := fmt.Sprintf("%s stage failed: %v", stage, cause)
	if env.Identifier == "" || stage == StageSettled { // a job, a listing or an aggregator message
		if stage == StageSettled {
			reason = fmt.Sprintf("the job aggregator could not count a record: %v", cause)
		}
		if _, err := st.JobFail(ctx, &store.JobFailParams{JobID: env.JobID, Type: "StageError", Message: reason}); err != nil {
			return nil, fmt.Errorf("fail job after %s failure: %w", stage, err)
		}
		if stage == StageSettled {
			return nil, nil
		}
		return harvest.Settle(&harvest.Settled{Kind: harvest.SettledFailed, JobID: env.JobID})
	}
	recordID := env.RecordID
	if env.JobType == harvest.JobValidate || stage == StageCompare {
		recordID = "" // no harvest_record row exists
	}
	return harvest.Settle(&harvest.Settled{Kind: harvest.SettledOutcome, JobID: env.JobID,
		Key: harvest.IdentifierKey(env.Identifier), Identifier: env.Identifier, RecordID: recordID,
		Outcome: harvest.OutcomeErrored, Status: harvest.RecordFailed, Validated: env.Validated, Transformed: env.Transformed,
		Errors: []harvest.RecordError{{Type: "StageError", Message: reason, Severity: harvest.SeverityError}}})
}
