package router

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/harvest"
)

// batchStage runs one Stage on batches of its consumer's messages (harvest's stage contract):
// it pulls up to BatchSize messages (Subscriber.Batches), hands them to the stage at once,
// publishes every message's outputs asynchronously and awaits their PubAcks once for the
// batch, then acks each message whose outputs were stored (the acks flushed once per batch;
// never AckAll, as several consumers share a stream). A message whose Result is an error is
// retried alone, with backoff, and after MaxRetries retries (at once for a
// harvest.PermanentError) it is kept on harvest.v1.failed.<stage> and settled by the stage's
// give-up hook; a harvest.UnknownJobError is counted, logged and acked. A message whose outputs
// were not stored, or that a shutdown interrupted, is naked: JetStream delivers it again.
type batchStage struct {
	st      Stage
	cfg     Config
	bus     *Bus
	pub     *Publisher // the router's: outputs and the failed subject
	sub     *Subscriber
	handle  harvest.BatchHandler
	size    int
	workers int
	logger  *slog.Logger
	prefix  string

	received, emitted, errs, gaveUp, unknown prometheus.Counter
	duration                                 prometheus.Observer
}

// run handles the batches of the subscription until it ends, workers batches at once.
func (b *batchStage) run(ctx context.Context, batches <-chan []jetstream.Msg) {
	var wg sync.WaitGroup
	for range b.workers {
		wg.Go(func() {
			for batch := range batches {
				b.handleBatch(ctx, batch)
			}
		})
	}
	wg.Wait()
}

// handleBatch handles one batch and settles each of its messages with JetStream.
func (b *batchStage) handleBatch(ctx context.Context, raw []jetstream.Msg) {
	live, msgs := b.open(ctx, raw)
	if len(msgs) == 0 {
		return
	}
	b.received.Add(float64(len(msgs)))
	stop := b.keepAlive(live)
	defer stop()
	start := time.Now()
	res := b.call(ctx, msgs)
	outs := make([][]*harvest.Message, len(msgs))
	done := make([]bool, len(msgs)) // settled: acked once its outputs are stored
	var wg sync.WaitGroup
	for i, r := range res {
		if r.Err == nil {
			outs[i], done[i] = r.Out, true
			continue
		}
		wg.Go(func() { outs[i], done[i] = b.resolve(ctx, msgs[i], r.Err) })
	}
	wg.Wait()
	per := time.Since(start).Seconds() / float64(len(msgs))
	for range msgs {
		b.duration.Observe(per)
	}
	b.publish(msgs, outs, done)
	stop()
	for i, m := range live {
		switch {
		case done[i]:
			b.ack(ctx, m)
		case ctx.Err() != nil:
			_ = m.Nak() // interrupted by a shutdown: someone else takes it now
		default:
			_ = m.NakWithDelay(b.sub.nakDelay)
		}
	}
	if err := b.bus.nc.Flush(); err != nil && ctx.Err() == nil {
		b.logger.Warn("jetstream acks not flushed", "stage", b.st.Name, "error", err)
	}
}

// open turns the batch's JetStream messages into harvest messages in ctx, fetching a body sent
// by reference (claim.go). A message whose body is gone is terminated (no handler can ever use
// it; orphan cleanup ends a job waiting on it), one whose body cannot be fetched now is naked.
func (b *batchStage) open(ctx context.Context, raw []jetstream.Msg) (live []jetstream.Msg, msgs []*harvest.Message) {
	for _, m := range raw {
		data, err := b.sub.claims.body(ctx, m.Headers(), m.Data())
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			b.logger.Error("message body sent by reference is gone; message dropped", "stage", b.st.Name,
				"subject", m.Subject(), "error", err)
			_ = m.Term()
			continue
		}
		if err != nil {
			b.logger.Warn("message body sent by reference could not be fetched; retrying", "stage", b.st.Name, "error", err)
			_ = m.NakWithDelay(b.sub.nakDelay)
			continue
		}
		if meta, err := m.Metadata(); err == nil && meta.NumDelivered > 1 && b.sub.redelivered != nil {
			b.sub.redelivered.Inc()
		}
		hm := fromNATS(m.Headers(), data)
		hm.SetContext(ctx)
		live, msgs = append(live, m), append(msgs, hm)
	}
	return live, msgs
}

// fromNATS is a harvest message of body data with headers h: UUIDHeader is its UUID, the other
// headers but the NATS ones and ClaimHeader its metadata.
func fromNATS(h nats.Header, data []byte) *harvest.Message {
	m := harvest.NewRawMessage(h.Get(UUIDHeader), data)
	for k, v := range h {
		if k == UUIDHeader || strings.HasPrefix(k, "Nats-") || k == ClaimHeader {
			continue
		}
		m.Metadata[k] = strings.Join(v, ",")
	}
	return m
}

// keepAlive tells JetStream every AckWait/3 that the batch's messages are in progress, until
// the returned stop is called (more than once is fine).
func (b *batchStage) keepAlive(msgs []jetstream.Msg) (stop func()) {
	quit := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(max(b.sub.consumer.AckWait/3, time.Second))
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				for _, m := range msgs {
					_ = m.InProgress()
				}
			}
		}
	})
	return func() {
		once.Do(func() { close(quit) })
		wg.Wait()
	}
}

// call runs the stage on batch; a panic, or a Result missing, is an error of each message.
func (b *batchStage) call(ctx context.Context, batch []*harvest.Message) (res []harvest.Result) {
	defer func() {
		if p := recover(); p != nil {
			res = make([]harvest.Result, len(batch))
			for i := range res {
				res[i].Err = fmt.Errorf("stage %s panicked: %v", b.st.Name, p)
			}
		}
	}()
	res = b.handle(ctx, batch)
	if len(res) != len(batch) {
		err := fmt.Errorf("stage %s answered %d messages of %d", b.st.Name, len(res), len(batch))
		res = make([]harvest.Result, len(batch))
		for i := range res {
			res[i].Err = err
		}
	}
	return res
}

// resolve settles one message whose stage failed with err: it retries it alone with backoff
// and, when it still fails, gives up on it (giveUp). ok is false when the message must come
// again (a shutdown, or a give-up that could not be written).
func (b *batchStage) resolve(ctx context.Context, m *harvest.Message, err error) (out []*harvest.Message, ok bool) {
	wait := b.cfg.RetryInterval
	var away time.Time // when the stage's service was first found unreachable (cfg.Unavailable)
	for retries := 0; ; {
		if ctx.Err() != nil {
			b.logger.Debug("stage interrupted by shutdown", b.ids(m, "error", err)...)
			return nil, false
		}
		var uj *harvest.UnknownJobError
		if errors.As(err, &uj) {
			b.unknown.Inc()
			b.logger.Warn("message of a job this database does not have (deleted with its source, or another "+
				"deployment's on the same NATS prefix); acked", "stage", b.st.Name, harvest.MetaJobID, uj.JobID,
				"nats_prefix", b.prefix)
			return nil, true
		}
		b.errs.Inc()
		b.logger.Warn("stage failed", b.ids(m, "error", err)...)
		if harvest.IsPermanent(err) || errors.Is(err, context.Canceled) {
			return b.giveUp(ctx, m, err)
		}
		// A retry while the stage's database restarts, say, is not counted: the record's work
		// must not end half done for that.
		if counted := !b.unavailable(err, &away); counted && retries >= b.cfg.MaxRetries {
			return b.giveUp(ctx, m, err)
		} else if counted {
			retries++
		}
		select {
		case <-ctx.Done():
			continue
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*b.cfg.RetryInterval)
		r := b.call(ctx, []*harvest.Message{m})[0]
		if r.Err == nil {
			return r.Out, true
		}
		err = r.Err
	}
}

// unavailable says whether err is a service's absence (cfg.Unavailable) that a retry should
// wait out without counting it: for up to cfg.UnavailableFor from *away, when it was first met.
func (b *batchStage) unavailable(err error, away *time.Time) bool {
	if b.cfg.Unavailable == nil || !b.cfg.Unavailable(err) {
		return false
	}
	if away.IsZero() {
		*away = time.Now()
	}
	return time.Since(*away) < b.cfg.UnavailableFor
}

// giveUp keeps m on harvest.v1.failed.<stage> with the reason (harvest.MetaReason) for replay,
// then returns what the stage's give-up hook says ends its work (nil hook: nothing).
func (b *batchStage) giveUp(ctx context.Context, m *harvest.Message, cause error) ([]*harvest.Message, bool) {
	subject := harvest.SubjectFailedPrefix + b.st.Name
	failed := m.Copy()
	failed.SetContext(ctx)
	failed.Metadata.Set(harvest.MetaSubject, subject)
	failed.Metadata.Set(harvest.MetaReason, harvest.HeaderValue(cause.Error()))
	if err := b.pub.Publish(subject, failed); err != nil {
		b.logger.Warn("stage gave up on message, and could not keep it on the failed subject; retrying",
			b.ids(m, "error", cause, "publish_error", err)...)
		return nil, false
	}
	b.gaveUp.Inc()
	b.logger.Error("stage gave up on message", b.ids(m, "error", cause)...)
	if b.st.GiveUp == nil {
		return nil, true
	}
	out, err := b.st.GiveUp(m, cause)
	if err != nil {
		b.logger.Warn("stage's give-up hook failed; retrying", b.ids(m, "error", err)...)
		return nil, false
	}
	return out, true
}

// publish sends the outputs of every settled message asynchronously and waits once for all
// their PubAcks; a message whose outputs were not all stored is no longer done.
func (b *batchStage) publish(msgs []*harvest.Message, outs [][]*harvest.Message, done []bool) {
	pending := make([][]pendingAck, len(msgs))
	for i := range msgs {
		if !done[i] {
			continue
		}
		for _, o := range outs[i] {
			pa, err := b.pub.publishAsync("", o)
			if err != nil {
				b.logger.Warn("stage output not sent; message retried", b.ids(msgs[i], "error", err)...)
				done[i] = false
				break
			}
			pending[i] = append(pending[i], pa)
		}
		b.emitted.Add(float64(len(outs[i])))
	}
	timeout := time.NewTimer(pubAckTimeout)
	defer timeout.Stop()
	var lost error
	for i, pas := range pending {
		for _, pa := range pas {
			var err error
			select {
			case <-pa.f.Ok():
			case err = <-pa.f.Err():
			case <-timeout.C:
				err = fmt.Errorf("no PubAck within %v", pubAckTimeout)
				timeout.Reset(0)
			}
			if err != nil && done[i] {
				done[i] = false
				lost = fmt.Errorf("publish to %s: %w", pa.subject, err)
				b.logger.Warn("stage output not stored; message retried", b.ids(msgs[i], "error", lost)...)
			}
		}
	}
	recreateIfLost(b.pub.js, b.pub.dep, lost)
}

// ack acks m (claims.ack: a body sent by reference goes once the broker confirmed the ack).
func (b *batchStage) ack(ctx context.Context, m jetstream.Msg) {
	if err := b.sub.claims.ack(ctx, m); err != nil {
		b.logger.Warn("jetstream ack failed", "stage", b.st.Name, "error", err)
	}
}

// ids are the log attributes of m: the stage, the job, the record and the identifier, then more.
func (b *batchStage) ids(m *harvest.Message, more ...any) []any {
	return append([]any{"stage", b.st.Name, harvest.MetaJobID, m.Metadata.Get(harvest.MetaJobID),
		harvest.MetaRecordID, m.Metadata.Get(harvest.MetaRecordID),
		harvest.MetaIdentifier, m.Metadata.Get(harvest.MetaIdentifier)}, more...)
}

// flushedBatch runs h, then waits until JetStream has answered for every message published
// through pub, so that the batch's messages are acked only after all they published was
// stored. When one of them was not stored, every message of the batch that had succeeded
// fails, and is retried alone (the stages are idempotent).
func flushedBatch(pub *DeferredPublisher, h harvest.BatchHandler) harvest.BatchHandler {
	return func(ctx context.Context, batch []*harvest.Message) []harvest.Result {
		before := pub.failures.Load()
		res := h(ctx, batch)
		<-pub.js.PublishAsyncComplete()
		if pub.failures.Load() == before {
			return res
		}
		cause, _ := pub.firstErr.Load().(error)
		recreateIfLost(pub.js, pub.p.dep, cause)
		for i := range res {
			if res[i].Err == nil {
				res[i] = harvest.Result{Err: fmt.Errorf("a message the handler published was not stored: %w", cause)}
			}
		}
		return res
	}
}
