package router

import (
	"maps"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
)

// UUIDHeader is the header that carries a message's UUID (harvest.Message.UUID): watermill's
// name for it, kept so that messages stored before and after read alike.
const UUIDHeader = "_watermill_message_uuid"

// toHarvest is the watermill message m as a harvest message, in m's context (the metadata is
// copied, the payload shared).
func toHarvest(m *message.Message) *harvest.Message {
	h := harvest.NewRawMessage(m.UUID, m.Payload)
	maps.Copy(h.Metadata, m.Metadata)
	h.SetContext(m.Context())
	return h
}

// wmPublisher is a harvest.Publisher as a watermill Publisher: with Subscriber (a watermill
// Subscriber), watermill's own pub/sub test suite runs on the transport (pubsub_test.go).
type wmPublisher struct{ p harvest.Publisher }

func (w wmPublisher) Publish(topic string, msgs ...*message.Message) error {
	out := make([]*harvest.Message, len(msgs))
	for i, m := range msgs {
		out[i] = toHarvest(m)
	}
	return w.p.Publish(topic, out...)
}

func (w wmPublisher) Close() error { return nil }
