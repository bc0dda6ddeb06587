package harvest

import (
	"context"
	"maps"

	"github.com/google/uuid"
)

// Message is one message on its way between stages: a payload (an envelope of this package,
// see NewMessage) and its metadata, which travel as NATS headers. It is the transport's unit
// without the transport: package router turns it into a NATS message and back, so that the
// stages, jobs and the scheduler need no broker's types.
type Message struct {
	// UUID names the message (its _watermill_message_uuid header, kept so that messages sent
	// before and after this type read alike).
	UUID string
	// Metadata are the message's ids (MetaJobID, MetaRecordID, …) and MetaSubject, where the
	// publisher sends it.
	Metadata Metadata
	// Payload is the envelope.
	Payload []byte
	ctx     context.Context
}

// Metadata is a message's headers, by name.
type Metadata map[string]string

// Get returns the value of key, or "".
func (m Metadata) Get(key string) string { return m[key] }

// Set sets key to value.
func (m Metadata) Set(key, value string) { m[key] = value }

// NewRawMessage returns a message of payload named id (a new UUID when id is ""), without
// metadata.
func NewRawMessage(id string, payload []byte) *Message {
	if id == "" {
		id = uuid.NewString()
	}
	return &Message{UUID: id, Metadata: Metadata{}, Payload: payload}
}

// Context is the context the message is handled in: the runner's, which ends when the process
// shuts down; context.Background when none was set.
func (m *Message) Context() context.Context {
	if m.ctx == nil {
		return context.Background()
	}
	return m.ctx
}

// SetContext sets the context the message is handled in.
func (m *Message) SetContext(ctx context.Context) { m.ctx = ctx }

// Copy returns a copy of m with its own metadata (the payload is shared) and no context.
func (m *Message) Copy() *Message {
	return &Message{UUID: m.UUID, Metadata: maps.Clone(m.Metadata), Payload: m.Payload}
}

// Publisher sends messages, each to the subject in its MetaSubject metadata (topic when it
// has none); router.Publisher is the one over JetStream. Publish returns an error when a
// message could not be sent (or, for a publisher that confirms, stored).
type Publisher interface {
	Publish(topic string, msgs ...*Message) error
}
