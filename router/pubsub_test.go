package router

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/pubsub/tests"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// TestPubSubUniversal runs watermill's universal Pub/Sub suite (short variants: watermill's
// long ones publish 5,000–10,000 messages per case) against our Publisher and Subscriber on an
// in-process JetStream server, twice: on a work-queue stream, as the stages' work subjects are
// (HARVEST_WORK, HARVEST_SETTLED), with 8 messages in flight per subscriber, as a stage's
// concurrent handlers have; and on a limits stream, as the failed records and reports are,
// where a subject can have several durable consumers (consumer groups), one message at a time
// (the order tests).
//
// A Subscriber is one durable consumer with a fixed filter subject, which its Subscribe's topic
// does not change (the router makes one per stage); topicSubscriber adapts it to the suite,
// which subscribes to topics of its own: each Subscribe binds a Subscriber to the durable
// consumer of that topic (of that group, for consumer groups), so every subscriber of a topic
// shares its messages, as every process running a stage does.
func TestPubSubUniversal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a nats-server and runs watermill's suite (about a minute)")
	}
	bus := startBus(t)

	for _, tc := range []struct {
		name      string
		retention jetstream.RetentionPolicy
		inFlight  int
		features  tests.Features
	}{
		{"work queue", jetstream.WorkQueuePolicy, 8, tests.Features{
			// A work-queue stream takes one consumer per subject: the processes of a stage share it.
			ConsumerGroups: false,
			// JetStream delivers at least once: a message not acked within AckWait comes again.
			ExactlyOnceDelivery: false,
			// Up to inFlight messages are handed to the router at once (a stage's concurrent handlers).
			GuaranteedOrder: false,
			// Likewise with one subscriber: inFlight deliveries overlap.
			GuaranteedOrderWithSingleSubscriber: false,
			// Messages are stored by JetStream until acked, whoever subscribes.
			Persistent: true,
			// A work queue deletes what was acked, and a topic's subscribers share one durable consumer.
			NewSubscriberReceivesOldMessages: false,
			// The message context is not carried over the bus; the subscriber gives each its own.
			ContextPreserved: false,
			// Restarts (and a restart that wiped the store) are TestLostStreamsAreCreatedAgain's.
			RestartServiceCommand: nil,
			// The suite's topics become subjects of the test stream.
			GenerateTopicFunc: func(tctx tests.TestContext) string { return "wmwork." + string(tctx.TestID) },
			// watermill's long variants publish up to 10,000 messages per case: minutes on 2 cores.
			ForceShort: true,
		}},
		{"limits, consumer groups", jetstream.LimitsPolicy, 1, tests.Features{
			// A durable consumer is a group: each gets every message, its subscribers share them.
			ConsumerGroups: true,
			// JetStream delivers at least once: a message not acked within AckWait comes again.
			ExactlyOnceDelivery: false,
			// One subscriber handing one message at a time (inFlight 1) gets them in order...
			GuaranteedOrder: true,
			// ...but subscribers sharing a topic's consumer each take messages as they can.
			GuaranteedOrderWithSingleSubscriber: true,
			// Messages are stored by JetStream, whoever subscribes.
			Persistent: true,
			// A topic's subscribers share one durable consumer, which does not deliver acked
			// messages again; a new group does get them (TestConsumerGroups).
			NewSubscriberReceivesOldMessages: false,
			// The message context is not carried over the bus; the subscriber gives each its own.
			ContextPreserved: false,
			// Restarts (and a restart that wiped the store) are TestLostStreamsAreCreatedAgain's.
			RestartServiceCommand: nil,
			// The suite's topics become subjects of the test stream.
			GenerateTopicFunc: func(tctx tests.TestContext) string { return "wmlimits." + string(tctx.TestID) },
			// watermill's long variants publish up to 10,000 messages per case: minutes on 2 cores.
			ForceShort: true,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := strings.TrimSuffix(tc.features.GenerateTopicFunc(tests.TestContext{}), ".")
			stream := strings.ToUpper("WMTEST_" + prefix)
			_, err := bus.js.CreateOrUpdateStream(context.Background(), jetstream.StreamConfig{Name: stream,
				Subjects: []string{prefix + ".>"}, Retention: tc.retention, Storage: jetstream.FileStorage})
			require.NoError(t, err)
			newPubSub := func(t *testing.T, group string) (message.Publisher, message.Subscriber) {
				return wmPublisher{bus.Publisher()}, &topicSubscriber{js: bus.js, stream: stream, group: group, inFlight: tc.inFlight}
			}
			tests.TestPubSub(t, tc.features,
				func(t *testing.T) (message.Publisher, message.Subscriber) { return newPubSub(t, "") },
				newPubSub)
		})
	}
}

// ackWait is the suite's consumers' AckWait. Short, because a subscriber closed while it has
// messages pulled but not handed out sometimes leaves one of them to be redelivered only after
// AckWait (TestContinueAfterErrors and TestContinueAfterSubscribeClose then take that long;
// not yet fixed: see the branch's report).
const ackWait = 5 * time.Second

// topicSubscriber is a message.Subscriber whose every Subscribe binds a Subscriber (the one
// under test) to the durable consumer of the topic (of group and the topic, given a group), with
// the settings the router gives a stage's consumer.
type topicSubscriber struct {
	js       jetstream.JetStream
	stream   string
	group    string
	inFlight int

	mu     sync.Mutex
	subs   []*Subscriber
	closed bool
}

func (s *topicSubscriber) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	durable := strings.NewReplacer(".", "_", "*", "_", ">", "_").Replace(strings.Trim(s.group+"_"+topic, "_"))
	pull := 64
	sub := newSubscriber(s.js, deployment{replicas: 1}, s.stream, jetstream.ConsumerConfig{Durable: durable, FilterSubject: topic,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: 5, // the router's default
		MaxAckPending: max(1000, 2*pull)}, pull, s.inFlight, 50*time.Millisecond,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	sub.closeGrace = time.Second // TestMessageCtx closes with a message it never answers
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, context.Canceled
	}
	s.subs = append(s.subs, sub)
	return sub.Subscribe(ctx, topic)
}

func (s *topicSubscriber) Close() error {
	s.mu.Lock()
	s.closed = true
	subs := s.subs
	s.mu.Unlock()
	for _, sub := range subs {
		if err := sub.Close(); err != nil {
			return err
		}
	}
	return nil
}

// Close returns even when a delivered message is never acked nor nacked (watermill's
// TestMessageCtx found Close waiting for it forever): after closeGrace the message is naked,
// and the next subscriber of the consumer gets it at once.
func TestSubscriberCloseUnansweredMessage(t *testing.T) {
	bus := startBus(t)
	_, err := bus.js.CreateOrUpdateStream(context.Background(), jetstream.StreamConfig{Name: "WMTEST_CLOSE",
		Subjects: []string{"wmclose.>"}, Retention: jetstream.WorkQueuePolicy})
	require.NoError(t, err)
	subs := &topicSubscriber{js: bus.js, stream: "WMTEST_CLOSE", inFlight: 1}
	ch, err := subs.Subscribe(context.Background(), "wmclose.a")
	require.NoError(t, err)
	require.NoError(t, bus.Publisher().Publish("wmclose.a", harvest.NewRawMessage("unanswered", []byte("x"))))
	m := <-ch // neither acked nor nacked
	require.Equal(t, "unanswered", m.UUID)

	closed := make(chan error)
	go func() { closed <- subs.Close() }()
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(5 * time.Minute): // a failsafe: Close is waited for, not timed
		t.Fatal("Close still waits for a message its handler never answered")
	}
	require.Error(t, m.Context().Err(), "the message's context ended with the subscription")

	again := &topicSubscriber{js: bus.js, stream: "WMTEST_CLOSE", inFlight: 1}
	t.Cleanup(func() { _ = again.Close() })
	ch, err = again.Subscribe(context.Background(), "wmclose.a")
	require.NoError(t, err)
	m = <-ch
	require.Equal(t, "unanswered", m.UUID, "redelivered")
	m.Ack()
}
