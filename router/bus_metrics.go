package router

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Instrument registers harvester_messages_published_total{subject} on reg and counts every
// message the bus's publishers send from now on (the routing Publisher and the
// DeferredPublishers made after this call), by subject: what each stage sends on. A message
// whose publish is retried counts again. Call it once, before publishing.
func (b *Bus) Instrument(reg prometheus.Registerer) error {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "harvester_messages_published_total",
		Help: "Messages sent to JetStream, by subject (harvest.v1.<stage>, harvest.v1.settled, harvest.v1.failed.<stage>, ...)."},
		[]string{"subject"})
	if err := reg.Register(c); err != nil {
		return errors.Join(errors.New("register bus metrics"), err)
	}
	b.pub.published = c
	return nil
}
