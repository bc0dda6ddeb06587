package router

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/harvest"
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

// poison is the last word on a message whose handler still fails after its retries (or
// failed permanently), in watermill's poison-queue style: the message is kept on
// harvest.v1.failed.<stage> with the reason (harvest.MetaReason) for replay, then the stage's
// give-up hook (nil: none) says what ends its work, and the original is acked: it has been
// dealt with, and gaveUp counts it. A shutdown is not a failure: that message is redelivered.
func poison(pub harvest.Publisher, logger *slog.Logger, stage string, giveUp GiveUpFunc, gaveUp prometheus.Counter) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := h(msg)
			if err == nil || msg.Context().Err() != nil {
				return out, err
			}
			failed := toHarvest(msg).Copy()
			failed.SetContext(msg.Context())
			failed.Metadata.Set(harvest.MetaSubject, harvest.SubjectFailedPrefix+stage)
			failed.Metadata.Set(harvest.MetaReason, harvest.HeaderValue(err.Error()))
			if perr := pub.Publish(harvest.SubjectFailedPrefix+stage, failed); perr != nil {
				return nil, fmt.Errorf("%w (and keeping it on the failed subject: %v)", err, perr)
			}
			gaveUp.Inc()
			logger.Error("stage gave up on message", "stage", stage, "error", err,
				harvest.MetaJobID, msg.Metadata.Get(harvest.MetaJobID), harvest.MetaIdentifier, msg.Metadata.Get(harvest.MetaIdentifier))
			if giveUp == nil {
				return nil, nil
			}
			settled, gerr := giveUp(toHarvest(msg), err)
			return toWatermillMessages(settled), gerr
		}
	}
}

// unknownJob acks a message whose handler found no such job in the database
// (harvest.UnknownJobError): it counts it on unknown and logs a warning with the job id, the
// stage and the deployment's NATS prefix, so that a message dropped for that reason is never
// silent. It sits inside the retry: no retry makes the job appear.
func unknownJob(logger *slog.Logger, stage, prefix string, unknown prometheus.Counter) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := h(msg)
			var uj *harvest.UnknownJobError
			if !errors.As(err, &uj) {
				return out, err
			}
			unknown.Inc()
			logger.Warn("message of a job this database does not have (deleted with its source, or another "+
				"deployment's on the same NATS prefix); acked", "stage", stage, harvest.MetaJobID, uj.JobID,
				"nats_prefix", prefix)
			return nil, nil
		}
	}
}
