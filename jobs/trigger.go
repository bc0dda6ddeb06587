package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// TriggerMessage is a trigger on harvest.SubjectTrigger, as the Norwegian FDK harvester takes them:
// harvest one source (DataSourceID; with PublisherID too, as FDK's admin sends it, the source
// must belong to that organization), every source of one organization (PublisherID alone), or,
// with neither, every rdf source (FDK harvests every dataset source). ForceUpdate makes the
// jobs force_harvest.
type TriggerMessage struct {
	DataSourceID string `json:"dataSourceId,omitempty"`
	PublisherID  string `json:"publisherId,omitempty"`
	ForceUpdate  bool   `json:"forceUpdate,omitempty"`
}

// TriggerHandler queues the jobs a trigger message asks for (the trigger stage's handler).
// Unknown ids, malformed messages and sources that already have a job are logged and
// acknowledged: redelivering them cannot help.
type TriggerHandler struct {
	store  store.Store
	logger *slog.Logger
}

// NewTriggerHandler returns the trigger consumer.
func NewTriggerHandler(st store.Store, logger *slog.Logger) *TriggerHandler {
	return &TriggerHandler{store: st, logger: logger}
}

// Handle queues the jobs of one trigger message. It returns an error only for store failures,
// which a retry may cure.
func (h *TriggerHandler) Handle(msg *harvest.Message) error {
	ctx := msg.Context()
	var t TriggerMessage
	if err := json.Unmarshal(msg.Payload, &t); err != nil {
		h.logger.Warn("ignoring trigger message: want a JSON object with dataSourceId, publisherId, forceUpdate",
			"payload", string(msg.Payload[:min(len(msg.Payload), 200)]))
		return nil
	}
	jobType := harvest.JobHarvest
	if t.ForceUpdate {
		jobType = harvest.JobForceHarvest
	}
	switch {
	case t.DataSourceID != "" && t.PublisherID != "":
		src, err := h.store.SourceGet(ctx, t.DataSourceID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			h.logger.Warn("trigger not queued", "source_id", t.DataSourceID, "reason", ErrUnknownSource)
			return nil
		case err != nil:
			return fmt.Errorf("get source: %w", err)
		case src.OrganizationID != t.PublisherID:
			h.logger.Warn("ignoring trigger: the source does not belong to the publisher",
				"source_id", t.DataSourceID, "publisher_id", t.PublisherID)
			return nil
		}
		return h.enqueue(msg, t.DataSourceID, jobType)
	case t.DataSourceID != "":
		return h.enqueue(msg, t.DataSourceID, jobType)
	case t.PublisherID == "":
		return h.enqueueAll(msg, "", harvest.SourceRDF, jobType)
	}
	if _, err := h.store.OrganizationGet(ctx, t.PublisherID); errors.Is(err, store.ErrNotFound) {
		h.logger.Warn("ignoring trigger for unknown publisher", "publisher_id", t.PublisherID)
		return nil
	} else if err != nil {
		return fmt.Errorf("get publisher: %w", err)
	}
	return h.enqueueAll(msg, t.PublisherID, "", jobType)
}

// enqueueAll queues a job of every source of organization orgID ("" for any organization) of
// sourceType ("" for any type), a page of 100 at a time.
func (h *TriggerHandler) enqueueAll(msg *harvest.Message, orgID string, sourceType harvest.SourceType, jobType harvest.JobType) error {
	ctx := msg.Context()
	for offset := 0; ; {
		sources, total, err := h.store.SourceList(ctx, &store.SourceListParams{OrganizationID: orgID,
			PageParams: store.PageParams{Limit: 100, Offset: offset}})
		if err != nil {
			return fmt.Errorf("list sources: %w", err)
		}
		for _, src := range sources {
			if sourceType != "" && src.SourceType != sourceType {
				continue
			}
			if err := h.enqueue(msg, src.ID, jobType); err != nil {
				return err
			}
		}
		offset += len(sources)
		if len(sources) == 0 || offset >= total {
			return nil
		}
	}
}

func (h *TriggerHandler) enqueue(msg *harvest.Message, sourceID string, jobType harvest.JobType) error {
	job, err := Control{Store: h.store}.Enqueue(msg.Context(), sourceID, jobType)
	switch {
	case errors.Is(err, ErrUnknownSource), errors.Is(err, ErrJobInProgress):
		h.logger.Warn("trigger not queued", "source_id", sourceID, "reason", err)
		return nil
	case err != nil:
		return err
	}
	h.logger.Info("trigger queued a job", "source_id", sourceID, "job_id", job.ID, "job_type", jobType)
	return nil
}

// TriggerGiveUp is the trigger handler's give-up hook (harvest.GiveUp): a trigger message names no job
// of its own, so it only stays on the failed subject.
func TriggerGiveUp(fail harvest.FailJob) func(*harvest.Message, error) ([]*harvest.Message, error) {
	return harvest.GiveUp{Stage: harvest.StageTrigger, FailJob: fail}.Settle
}
