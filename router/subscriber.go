package router

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// Subscriber is a watermill Subscriber on one durable JetStream pull consumer. It replaces
// watermill-nats' jetstream subscriber (v2.1.3), which panics with "send on closed channel"
// when it is closed while messages arrive, and abandons the message in flight at shutdown so
// that it waits out a whole AckWait before anyone gets it again. This one:
//
//   - hands up to inFlight messages at once to the router (watermill runs each message it
//     receives in a goroutine of its own), so one pull subscription feeds a stage's concurrent
//     handlers: a stage with 64 handlers once had 64 subscriptions, and ~170 pull
//     subscriptions on one connection stopped making progress after nats-server restarted
//     (crashtest TestRestartNATS);
//   - closes its output channel only after every delivery returned;
//   - tells JetStream the message is in progress every AckWait/3 while the handler runs, so a
//     long handler (a whole listing) keeps its message and a dead process loses it within one
//     AckWait;
//   - naks (redelivers at once) what a shutdown interrupted, and what the handler nacked after
//     NakDelay; a handler that neither acks nor nacks within 30 s of Close loses its message
//     the same way, so Close returns;
//   - fetches a body sent by reference (claim.go) before the handler sees the message, and
//     deletes its object once JetStream confirmed the ack.
type Subscriber struct {
	js       jetstream.JetStream
	claims   *claims
	consumer jetstream.ConsumerConfig
	dep      deployment // whose streams it creates again when the broker lost them
	stream   string
	pullMax  int
	inFlight int
	nakDelay time.Duration
	logger   *slog.Logger
	// redelivered counts deliveries JetStream made more than once; nil counts none.
	redelivered prometheus.Counter
	// closeGrace is how long a delivered message's handler may still take to ack or nack once
	// the subscription ended, before the message is naked. Default 30 s, the router's
	// CloseTimeout.
	closeGrace time.Duration

	once    sync.Once
	closing chan struct{}
	wg      sync.WaitGroup
}

var _ message.Subscriber = (*Subscriber)(nil)

// newSubscriber returns a Subscriber that binds (creating or updating) the durable consumer
// cfg on stream (both named as deployment d names them on the server). pullMax is the size of
// each pull (messages); inFlight is how many messages of a subscription are handed to the
// router at once (at least 1).
func newSubscriber(js jetstream.JetStream, d deployment, stream string, cfg jetstream.ConsumerConfig, pullMax, inFlight int,
	nakDelay time.Duration, logger *slog.Logger) *Subscriber {
	return &Subscriber{js: js, claims: &claims{js: js, dep: d}, dep: d, stream: stream, consumer: cfg, pullMax: pullMax, inFlight: max(1, inFlight),
		nakDelay: nakDelay, logger: logger, closeGrace: defaultCloseGrace,
		closing: make(chan struct{})}
}

// Subscribe starts consuming; the topic is the consumer's filter subject and is not used. The
// returned channel closes when ctx ends or Close is called.
func (s *Subscriber) Subscribe(ctx context.Context, _ string) (<-chan *message.Message, error) {
	ctx, queue, err := s.start(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan *message.Message)
	s.wg.Go(func() {
		defer close(out)
		s.handOn(ctx, queue, out)
	})
	return out, nil
}

// start binds the consumer and starts pulling its messages into the returned queue, which is
// closed once the subscription ended (ctx, or Close: the returned context then is done).
func (s *Subscriber) start(ctx context.Context) (context.Context, <-chan jetstream.Msg, error) {
	it, err := s.bind(ctx)
	if err != nil {
		return nil, nil, err
	}
	var cur atomic.Value // the iterator in use: bind replaces it after the broker lost the consumer
	cur.Store(it)
	ctx, cancel := context.WithCancel(ctx)
	// The client library buffers at most pullMax messages of a pull and drops what arrives
	// beyond that (a "slow consumer"); JetStream then redelivers the dropped messages only after
	// AckWait. That happened when handlers stalled (publishing while nats-server restarted) and
	// the client pulled again after reconnecting: the stage stopped for a whole AckWait. So one
	// goroutine drains the iterator at once into a queue as deep as the consumer's
	// MaxAckPending (more cannot be delivered unacked), and another hands its messages on.
	queue := make(chan jetstream.Msg, s.consumer.MaxAckPending+s.pullMax)
	s.wg.Add(3)
	go func() { // a pull that waits on a consumer the broker lost can wait forever: stop it
		defer s.wg.Done()
		s.watchConsumer(ctx, func() { cur.Load().(*puller).Stop() })
	}()
	go func() { // stop the iterator when asked, which unblocks Next
		defer s.wg.Done()
		select {
		case <-ctx.Done():
		case <-s.closing:
			cancel()
		}
		cur.Load().(*puller).Stop()
	}()
	go func() {
		defer s.wg.Done()
		defer close(queue)
		defer cancel()
		s.drain(ctx, it, &cur, queue)
	}()
	return ctx, queue, nil
}

// Batches starts consuming and hands the messages on in batches of up to size: a batch takes
// what the queue holds, and waits up to linger for more while it has fewer than size. The
// returned channel closes when ctx ends or Close is called; what was queued then is naked
// (someone else takes it now). The caller settles each message of a batch itself (ack, nak,
// in progress): the batch runner (batch.go).
func (s *Subscriber) Batches(ctx context.Context, size int, linger time.Duration) (<-chan []jetstream.Msg, error) {
	ctx, queue, err := s.start(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan []jetstream.Msg)
	s.wg.Go(func() {
		defer close(out)
		collect(ctx, queue, max(1, size), linger, out)
	})
	return out, nil
}

// collect gathers the messages of queue into batches for out until queue is closed (see
// Batches); after ctx ends it naks what is left.
func collect(ctx context.Context, queue <-chan jetstream.Msg, size int, linger time.Duration, out chan<- []jetstream.Msg) {
	nakAll := func(batch []jetstream.Msg) {
		for _, m := range batch {
			_ = m.Nak()
		}
	}
	timer := time.NewTimer(0)
	<-timer.C
	for first := range queue {
		if ctx.Err() != nil {
			_ = first.Nak()
			continue
		}
		batch := []jetstream.Msg{first}
		batch, open := fill(ctx, queue, batch, size, linger, timer)
		select {
		case out <- batch:
		case <-ctx.Done():
			nakAll(batch)
		}
		if !open {
			return
		}
	}
}

// fill adds to batch what queue holds now, then what comes within linger, up to size
// messages; open is false once queue is closed.
func fill(ctx context.Context, queue <-chan jetstream.Msg, batch []jetstream.Msg, size int, linger time.Duration,
	timer *time.Timer) (_ []jetstream.Msg, open bool) {
	for len(batch) < size { // what is queued already
		select {
		case m, ok := <-queue:
			if !ok {
				return batch, false
			}
			batch = append(batch, m)
			continue
		default:
		}
		break
	}
	if len(batch) >= size || linger <= 0 {
		return batch, true
	}
	timer.Reset(linger)
	defer func() {
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}()
	for len(batch) < size {
		select {
		case m, ok := <-queue:
			if !ok {
				return batch, false
			}
			batch = append(batch, m)
		case <-timer.C:
			return batch, true
		case <-ctx.Done():
			return batch, true
		}
	}
	return batch, true
}

// drain moves the messages of the iterator it into queue until ctx ends, binding the consumer
// again (and storing the new iterator in cur) when the iterator fails while ctx lasts.
func (s *Subscriber) drain(ctx context.Context, it *puller, cur *atomic.Value, queue chan<- jetstream.Msg) {
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			closed := errors.Is(err, jetstream.ErrMsgIteratorClosed) // by the client: consumer gone
			if !closed {
				s.logger.Warn("jetstream consume error", "consumer", s.consumer.Durable, "error", err)
			}
			next := s.rebind(ctx, err)
			if next == nil {
				if closed { // a dead iterator: try again in a while
					select {
					case <-ctx.Done():
						return
					case <-time.After(missedHeartbeat):
					}
				}
				continue
			}
			it.Stop()
			it = next
			cur.Store(it)
			if ctx.Err() != nil { // stopped meanwhile: the stopper may have missed it
				it.Stop()
				return
			}
			continue
		}
		select {
		case queue <- msg:
		case <-ctx.Done():
			_ = msg.Nak()
			return
		}
	}
}

// handOn delivers the messages of queue to out, s.inFlight at once, until queue is closed; after
// ctx ends it naks what is left (someone else takes it now). It returns when every delivery
// has ended.
func (s *Subscriber) handOn(ctx context.Context, queue <-chan jetstream.Msg, out chan<- *message.Message) {
	var deliveries sync.WaitGroup
	defer deliveries.Wait()
	slots := make(chan struct{}, s.inFlight)
	for msg := range queue {
		if ctx.Err() != nil { // shutting down: someone else takes it now
			_ = msg.Nak()
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			_ = msg.Nak()
			continue
		}
		deliveries.Go(func() {
			defer func() { <-slots }()
			s.deliver(ctx, msg, out)
		})
	}
}

// watchConsumer checks every 2×missedHeartbeat, until ctx ends, that the consumer still exists,
// and calls stop when the broker says it does not (a nats-server restarted with its store
// wiped): a pull on a lost consumer may neither deliver nor miss a heartbeat after the client
// reconnects, and stopping its iterator makes the consume loop create the consumer again.
func (s *Subscriber) watchConsumer(ctx context.Context, stop func()) {
	tick := time.NewTicker(2 * missedHeartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		cctx, cancel := context.WithTimeout(ctx, missedHeartbeat)
		_, err := s.js.Consumer(cctx, s.stream, s.consumer.Durable)
		cancel()
		if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
			s.logger.Warn("jetstream consumer lost by the broker; pulling again", "consumer", s.consumer.Durable)
			stop()
		}
	}
}

// defaultCloseGrace is a Subscriber's closeGrace.
const defaultCloseGrace = 30 * time.Second

// missedHeartbeat is the idle heartbeat of a pull: Next reports a broker that stopped
// answering after twice this long, and the subscriber then checks that its consumer exists.
const missedHeartbeat = 2 * time.Second

// bind creates (or updates) the durable consumer and starts pulling from it. On a JetStream
// cluster that cannot answer yet (a leader election) it keeps trying for a while
// (whileUnavailable); a stream the broker lost is made again first (recreateStreams).
func (s *Subscriber) bind(ctx context.Context) (*puller, error) {
	var c jetstream.Consumer
	err := whileUnavailable(ctx, s.js.Conn(), func(ctx context.Context) (err error) {
		c, err = s.js.CreateOrUpdateConsumer(ctx, s.stream, s.consumer)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			// a broker whose store was wiped after this process made the streams (a
			// nats-server restarted empty): make them again, then the consumer
			if rerr := recreateStreams(ctx, s.js, s.dep); rerr != nil {
				return errors.Join(err, rerr)
			}
			c, err = s.js.CreateOrUpdateConsumer(ctx, s.stream, s.consumer)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("consumer %s on %s: %w", s.consumer.Durable, s.stream, err)
	}
	return newPuller(c, s.pullMax, pullExpires, missedHeartbeat), nil
}

// pullExpires is how long one pull request waits for its batch to fill (puller).
const pullExpires = 10 * time.Second

// rebind returns a new iterator when the broker lost the consumer (a nats-server restarted
// with its store wiped, or after losing unsynced writes; the stream deleted) or the iterator
// ended by itself: the streams and the consumer are created again. It returns nil while the
// iterator and its consumer are fine, or when the broker cannot be reached.
func (s *Subscriber) rebind(ctx context.Context, cause error) *puller {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	switch {
	case errors.Is(cause, jetstream.ErrMsgIteratorClosed), errors.Is(cause, jetstream.ErrConsumerDeleted),
		errors.Is(cause, jetstream.ErrConsumerNotFound):
	case errors.Is(cause, jetstream.ErrNoHeartbeat): // a broker restarting, or one that forgot us
		_, err := s.js.Consumer(ctx, s.stream, s.consumer.Durable)
		if !errors.Is(err, jetstream.ErrConsumerNotFound) && !errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil
		}
	default:
		return nil
	}
	if err := recreateStreams(ctx, s.js, s.dep); err != nil {
		s.logger.Warn("jetstream streams lost, not recreated yet", "consumer", s.consumer.Durable, "error", err)
		return nil
	}
	it, err := s.bind(ctx)
	if err != nil {
		s.logger.Warn("jetstream consumer lost, not recreated yet", "consumer", s.consumer.Durable, "error", err)
		return nil
	}
	s.logger.Warn("jetstream consumer was lost by the broker and is created again", "consumer", s.consumer.Durable)
	return it
}

// deliver hands one message to the router and settles it with JetStream by the handler's word.
func (s *Subscriber) deliver(ctx context.Context, msg jetstream.Msg, out chan<- *message.Message) {
	data, err := s.claims.body(ctx, msg.Headers(), msg.Data())
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		// The body is gone (the bucket lost it, or its TTL passed): no handler can ever
		// use the message. A job waiting on the record is ended by orphan cleanup.
		s.logger.Error("message body sent by reference is gone; message dropped", "consumer", s.consumer.Durable,
			"subject", msg.Subject(), "error", err)
		_ = msg.Term()
		return
	}
	if err != nil {
		s.logger.Warn("message body sent by reference could not be fetched; retrying", "consumer", s.consumer.Durable,
			"error", err)
		_ = msg.NakWithDelay(s.nakDelay)
		return
	}
	if meta, err := msg.Metadata(); err == nil && meta.NumDelivered > 1 && s.redelivered != nil {
		s.redelivered.Inc()
	}
	wm := toWatermill(msg, data)
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wm.SetContext(mctx)
	select {
	case out <- wm:
	case <-ctx.Done():
		_ = msg.Nak()
		return
	}
	progress := time.NewTicker(max(s.consumer.AckWait/3, time.Second))
	defer progress.Stop()
	// Once the subscription ends (Close, or Subscribe's ctx), the message's context is done
	// and its handler has closeGrace to answer; a message still unanswered then is naked, so
	// that Close cannot wait forever on a handler that never acks nor nacks.
	ended, grace := ctx.Done(), (<-chan time.Time)(nil)
	for {
		select {
		case <-ended:
			ended, grace = nil, time.After(s.closeGrace)
		case <-grace:
			s.logger.Warn("handler did not answer after the subscription ended; message naked",
				"consumer", s.consumer.Durable, "subject", msg.Subject(), "grace", s.closeGrace)
			_ = msg.Nak()
			return
		case <-wm.Acked():
			if err := s.claims.ack(ctx, msg); err != nil {
				s.logger.Warn("jetstream ack failed", "consumer", s.consumer.Durable, "error", err)
			}
			return
		case <-wm.Nacked():
			if ctx.Err() != nil {
				_ = msg.Nak() // interrupted by a shutdown: someone else takes it now
			} else {
				_ = msg.NakWithDelay(s.nakDelay)
			}
			return
		case <-progress.C:
			_ = msg.InProgress()
		}
	}
}

// toWatermill turns a JetStream message with body data into a watermill one: the watermill
// UUID header becomes the UUID, other non-NATS headers the metadata (ClaimHeader excepted: the
// body is data).
func toWatermill(msg jetstream.Msg, data []byte) *message.Message {
	h := msg.Headers()
	id := h.Get(UUIDHeader)
	if id == "" {
		id = watermill.NewUUID()
	}
	wm := message.NewMessage(id, data)
	for k, v := range h {
		if k == UUIDHeader || strings.HasPrefix(k, "Nats-") || k == nats.MsgIdHdr || k == ClaimHeader {
			continue
		}
		wm.Metadata.Set(k, strings.Join(v, ","))
	}
	return wm
}

// Close stops every subscription and waits for the messages in flight to be settled: acked or
// nacked by their handlers, or naked after closeGrace.
func (s *Subscriber) Close() error {
	s.once.Do(func() { close(s.closing) })
	s.wg.Wait()
	return nil
}
