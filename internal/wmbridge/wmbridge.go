// Package wmbridge carries harvest messages over watermill: a watermill Publisher as a
// harvest.Publisher, and a watermill message as a harvest one. The tests of the stages and of
// jobs use it to collect what a stage publishes on watermill's in-memory pub/sub (gochannel).
package wmbridge

import (
	"maps"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
)

// Publisher is a harvest.Publisher that publishes through a watermill Publisher, to the
// subject in each message's harvest.MetaSubject (topic when it has none).
type Publisher struct{ message.Publisher }

// Publish converts each message and publishes it to its subject.
func (p Publisher) Publish(topic string, msgs ...*harvest.Message) error {
	for _, m := range msgs {
		subject := topic
		if s := m.Metadata.Get(harvest.MetaSubject); s != "" {
			subject = s
		}
		if err := p.Publisher.Publish(subject, ToWatermill(m)); err != nil {
			return err
		}
	}
	return nil
}

// ToWatermill is m as a watermill message (its own metadata; the payload is shared).
func ToWatermill(m *harvest.Message) *message.Message {
	wm := message.NewMessage(m.UUID, m.Payload)
	maps.Copy(wm.Metadata, m.Metadata)
	wm.SetContext(m.Context())
	return wm
}

// ToHarvest is m as a harvest message (its own metadata; the payload is shared).
func ToHarvest(m *message.Message) *harvest.Message {
	h := harvest.NewRawMessage(m.UUID, m.Payload)
	maps.Copy(h.Metadata, m.Metadata)
	h.SetContext(m.Context())
	return h
}
