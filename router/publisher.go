package router

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/harvest"
)

// Publisher is a harvest.Publisher onto JetStream that sends each message to the subject in
// its harvest.MetaSubject metadata (the topic argument otherwise), as its deployment names that
// subject on the server (names.subject: P.harvest.v1.… for a prefix P). watermill-nats' own
// publisher sends to the stream name, which cannot serve one stream over many subjects.
// Publish returns once JetStream has stored every message (its PubAck came back): several
// messages are sent at once with PublishMsgAsync and their PubAcks awaited together.
//
// A body over the message size travels by reference (claim.go).
type Publisher struct {
	js     jetstream.JetStream
	claims *claims
	// dep is the deployment whose names it publishes to and whose streams it creates again
	// (Bus sets it; default: the default prefix, 1 replica, no stamp).
	dep deployment
	// published counts the messages sent, by the code's subject (Bus.Instrument); nil counts none.
	published *prometheus.CounterVec
}

var _ harvest.Publisher = (*Publisher)(nil)

// NewPublisher returns a Publisher over js, onto the default deployment's subjects.
func NewPublisher(js jetstream.JetStream) *Publisher {
	p := &Publisher{js: js}
	p.setDeployment(deployment{replicas: 1})
	return p
}

// setDeployment makes p publish to d's subjects and its bucket, and create d's streams again
// (a broker that lost them).
func (p *Publisher) setDeployment(d deployment) {
	p.dep = d
	p.claims = &claims{js: p.js, dep: d}
}

// marshal returns m as a NATS message to its routing subject.
// Its headers are the message's metadata and its UUID (UUIDHeader).
func (p *Publisher) marshal(topic string, m *harvest.Message) (*nats.Msg, error) {
	subject := topic
	if s := m.Metadata.Get(harvest.MetaSubject); s != "" {
		subject = s
	}
	h := make(nats.Header, len(m.Metadata)+1)
	h[UUIDHeader] = []string{m.UUID}
	for k, v := range m.Metadata {
		h[k] = []string{v}
	}
	nm := &nats.Msg{Subject: p.dep.subject(subject), Data: m.Payload, Header: h}
	if err := p.claims.checkIn(m.Context(), nm); err != nil {
		return nil, err
	}
	if p.published != nil {
		p.published.WithLabelValues(subjectLabel(subject)).Inc()
	}
	return nm, nil
}

// Publish implements harvest.Publisher. It returns an error naming the subject of the first
// message JetStream did not store; messages before it, and possibly after it, were stored.
func (p *Publisher) Publish(topic string, msgs ...*harvest.Message) error {
	if len(msgs) == 1 {
		nm, err := p.marshal(topic, msgs[0])
		if err != nil {
			return err
		}
		ctx := msgs[0].Context()
		_, err = p.js.PublishMsg(ctx, nm)
		if errors.Is(err, jetstream.ErrNoStreamResponse) {
			// No stream answered: the broker lost its streams (restarted with its store
			// wiped). Create them again and send once more; a copy stored twice is harmless,
			// as every stage is idempotent.
			if err = recreateStreams(ctx, p.js, p.dep); err == nil {
				_, err = p.js.PublishMsg(ctx, nm)
			}
		}
		if err != nil {
			return fmt.Errorf("publish to %s: %w", nm.Subject, err)
		}
		return nil
	}
	pending := make([]pendingAck, 0, len(msgs))
	var err error
	for _, m := range msgs {
		var pa pendingAck
		if pa, err = p.publishAsync(topic, m); err != nil {
			break
		}
		pending = append(pending, pa)
	}
	err = errors.Join(err, awaitAcks(pending))
	recreateIfLost(p.js, p.dep, err)
	return err
}

// recreateIfLost creates deployment d's streams again when err says no stream answered (the
// broker lost them), so that the retry of the failed handler finds them.
func recreateIfLost(js jetstream.JetStream, d deployment, err error) {
	if errors.Is(err, jetstream.ErrNoStreamResponse) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = recreateStreams(ctx, js, d)
	}
}

// pendingAck is a message sent with PublishMsgAsync whose PubAck may not have come back yet.
type pendingAck struct {
	subject string
	f       jetstream.PubAckFuture
}

func (p *Publisher) publishAsync(topic string, m *harvest.Message) (pendingAck, error) {
	nm, err := p.marshal(topic, m)
	if err != nil {
		return pendingAck{}, err
	}
	f, err := p.js.PublishMsgAsync(nm)
	if err != nil {
		return pendingAck{}, fmt.Errorf("publish to %s: %w", nm.Subject, err)
	}
	return pendingAck{subject: nm.Subject, f: f}, nil
}

// awaitAcks waits for every PubAck (or its failure, or pubAckTimeout) and returns the first
// failure.
func awaitAcks(pending []pendingAck) error {
	var first error
	timeout := time.NewTimer(pubAckTimeout)
	defer timeout.Stop()
	for _, pa := range pending {
		select {
		case <-pa.f.Ok():
		case err := <-pa.f.Err():
			if first == nil {
				first = fmt.Errorf("publish to %s: %w", pa.subject, err)
			}
		case <-timeout.C:
			return cmp.Or(first, fmt.Errorf("publish to %s: no PubAck within %v", pa.subject, pubAckTimeout))
		}
	}
	return first
}

// Close releases nothing: the connection belongs to the caller.
func (p *Publisher) Close() error { return nil }

// flushWindow is how many messages a DeferredPublisher lets go unconfirmed before Publish waits
// for their PubAcks.
const flushWindow = 256

// pubAckTimeout is how long an asynchronously published message waits for its PubAck before it
// counts as not stored.
const pubAckTimeout = 10 * time.Second

// DeferredPublisher is the Publisher of a stage that publishes from inside its handler, one
// message at a time (EXTRACT streams a listing; COMPARE's listing handler sends deletes).
// Publish sends with PublishMsgAsync and returns without waiting for the PubAck, except when
// flushWindow messages are unconfirmed, when it waits for all of them. The stage's handler is
// wrapped by flushed, which waits for every PubAck before the handler returns, so the input
// message is still acked only once JetStream has stored everything the handler published, and
// a message that was not stored (an error PubAck, or none within pubAckTimeout) fails the
// handler, which is then retried (the stages are idempotent). It has a JetStream context of its
// own, so that its waits and failures are its stage's only.
type DeferredPublisher struct {
	p        *Publisher
	js       jetstream.JetStream
	failures atomic.Int64 // messages not stored, ever
	firstErr atomic.Value // error: the latest failure, for the message
}

var _ harvest.Publisher = (*DeferredPublisher)(nil)

// NewDeferredPublisher returns a DeferredPublisher on nc.
func NewDeferredPublisher(nc *nats.Conn) (*DeferredPublisher, error) {
	d := &DeferredPublisher{}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(pubAckTimeout),
		jetstream.WithPublishAsyncMaxPending(4*flushWindow),
		jetstream.WithPublishAsyncErrHandler(func(_ jetstream.JetStream, m *nats.Msg, err error) {
			d.firstErr.Store(fmt.Errorf("publish to %s: %w", m.Subject, err))
			d.failures.Add(1)
		}))
	if err != nil {
		return nil, err
	}
	d.js, d.p = js, NewPublisher(js)
	return d, nil
}

// Publish implements harvest.Publisher: it sends msgs and returns once they are on their way.
func (d *DeferredPublisher) Publish(topic string, msgs ...*harvest.Message) error {
	for _, m := range msgs {
		if d.js.PublishAsyncPending() >= flushWindow {
			<-d.js.PublishAsyncComplete()
		}
		if _, err := d.p.publishAsync(topic, m); err != nil {
			return err
		}
	}
	return nil
}

// Close releases nothing: the connection belongs to the caller.
func (d *DeferredPublisher) Close() error { return nil }

// flushed runs h, then waits until JetStream has answered for every message published through
// pub, so that h's input is acked only after all it published was stored. When one of them was
// not stored (during h, by h or by another handler sharing pub), h fails.
func flushed(pub *DeferredPublisher, h harvest.HandlerFunc) harvest.HandlerFunc {
	return func(msg *harvest.Message) ([]*harvest.Message, error) {
		before := pub.failures.Load()
		out, err := h(msg)
		<-pub.js.PublishAsyncComplete()
		if pub.failures.Load() != before && err == nil {
			cause, _ := pub.firstErr.Load().(error)
			recreateIfLost(pub.js, pub.p.dep, cause)
			return nil, fmt.Errorf("a message the handler published was not stored: %w", cause)
		}
		return out, err
	}
}
