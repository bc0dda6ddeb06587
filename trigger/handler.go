package trigger

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Message is a trigger on harvest.SubjectTrigger, as the Norwegian FDK harvester takes them:
// harvest one source (DataSourceID) or every source of one organization (PublisherID).
// ForceUpdate makes the jobs force_harvest.
type Message struct {
	DataSourceID string `json:"dataSourceId,omitempty"`
	PublisherID  string `json:"publisherId,omitempty"`
	ForceUpdate  bool   `json:"forceUpdate,omitempty"`
}

// Handler queues the jobs a trigger message asks for. Unknown ids, malformed messages and
// sources that already have a job are logged and acknowledged: redelivering them cannot help.
type Handler struct {
	store  store.Store
	logger *slog.Logger
}

// NewHandler returns the trigger consumer.
func NewHandler(st store.Store, logger *slog.Logger) *Handler {
	return &Handler{store: st, logger: logger}
}

// Handle queues the jobs of one trigger message. It returns an error only for store failures,
// which a retry may cure.
func (h *Handler) Handle(msg *message.Message) error {
	ctx := msg.Context()
	var t Message
	if err := json.Unmarshal(msg.Payload, &t); err != nil || (t.DataSourceID == "") == (t.PublisherID == "") {
		h.logger.Warn("ignoring trigger message: want JSON with exactly one of dataSourceId or publisherId",
			"payload", string(msg.Payload[:min(len(msg.Payload), 200)]))
		return nil
	}
	jobType := harvest.JobHarvest
	if t.ForceUpdate {
		jobType = harvest.JobForceHarvest
	}
	if t.DataSourceID != "" {
		return h.enqueue(msg, t.DataSourceID, jobType)
	}
	if _, err := h.store.OrganizationGet(ctx, t.PublisherID); errors.Is(err, store.ErrNotFound) {
		h.logger.Warn("ignoring trigger for unknown publisher", "publisher_id", t.PublisherID)
		return nil
	} else if err != nil {
		return fmt.Errorf("get publisher: %w", err)
	}
	for offset := 0; ; {
		sources, total, err := h.store.SourceList(ctx, &store.SourceListParams{OrganizationID: t.PublisherID,
			PageParams: store.PageParams{Limit: 100, Offset: offset}})
		if err != nil {
			return fmt.Errorf("list publisher's sources: %w", err)
		}
		for _, src := range sources {
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

func (h *Handler) enqueue(msg *message.Message, sourceID string, jobType harvest.JobType) error {
	job, err := Enqueue(msg.Context(), h.store, sourceID, jobType)
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
