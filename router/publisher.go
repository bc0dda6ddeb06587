package router

import (
	"context"
	"errors"
	"fmt"

	wmnats "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/nats"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/harvester-dev/harvester/harvest"
)

// Publisher is a watermill Publisher onto JetStream that sends each message to the subject in
// its harvest.MetaSubject metadata (the topic argument otherwise). watermill-nats' own
// publisher sends to the stream name, which cannot serve one stream over many subjects.
// Publish returns once JetStream has stored the message.
type Publisher struct {
	js  jetstream.JetStream
	enc wmnats.NATSMarshaler
}

var _ message.Publisher = (*Publisher)(nil)

// NewPublisher returns a Publisher over js.
func NewPublisher(js jetstream.JetStream) *Publisher { return &Publisher{js: js} }

// Publish implements message.Publisher.
func (p *Publisher) Publish(topic string, msgs ...*message.Message) error {
	for _, m := range msgs {
		subject := topic
		if s := m.Metadata.Get(harvest.MetaSubject); s != "" {
			subject = s
		}
		nm, err := p.enc.Marshal(subject, m)
		if err != nil {
			return fmt.Errorf("marshal message for %s: %w", subject, err)
		}
		ctx := m.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		_, err = p.js.PublishMsg(ctx, nm)
		if errors.Is(err, jetstream.ErrNoStreamResponse) {
			// No stream answered: the broker lost its streams (restarted with its store
			// wiped). Create them again and send once more; a copy stored twice is harmless,
			// as every stage is idempotent.
			if err = recreateStreams(ctx, p.js); err == nil {
				_, err = p.js.PublishMsg(ctx, nm)
			}
		}
		if err != nil {
			return fmt.Errorf("publish to %s: %w", subject, err)
		}
	}
	return nil
}

// Close implements message.Publisher; the connection belongs to the caller.
func (p *Publisher) Close() error { return nil }
