package router

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// puller pulls a durable consumer's messages one pull request at a time (jetstream Fetch), in
// place of the client library's continuous iterator (Consumer.Messages).
//
// Why: with nats.go v1.55 and nats-server 2.15, the iterator was seen to stop pulling while
// its consumer had hundreds of messages pending: the consumer had no waiting pull request
// (NumWaiting 0, NumAckPending 0), while the iterator counted its earlier requests as still
// open, so it sent no new one until its missed-heartbeat check reset the count two heartbeats
// (4 s) later. A 20,000-record first harvest stalled so every few seconds, with the machine
// half idle (bench: 500–900 records/s, varying from run to run). A Fetch is one request with
// its own expiry: it ends when its batch is full, when the request expires, or when
// heartbeats stop, and the next one is sent at once, so no count of ours can go stale.
//
// It has the iterator's contract as Subscriber uses it: Next blocks for the next message or
// returns an error (jetstream.ErrMsgIteratorClosed once Stop was called, ErrNoHeartbeat when
// the broker stopped answering a request, or the error of the request itself, such as
// ErrConsumerNotFound); Stop may be called from any goroutine, more than once.
type puller struct {
	c       jetstream.Consumer
	batch   int           // messages per request
	expires time.Duration // how long a request waits for its batch to fill
	beat    time.Duration // the broker's idle heartbeat on a waiting request

	cur       jetstream.MessageBatch // the request being read; nil: send the next
	curCancel context.CancelFunc     // ends cur's request: its inbox is unsubscribed
	stopped   context.Context        // done once Stop was called
	stop      context.CancelFunc
}

// fetchRetry is the least time between two requests of which the first could not be sent.
const fetchRetry = 100 * time.Millisecond

// newPuller returns a puller of c's messages, batch at a time, whose requests wait up to
// expires and are heartbeated every beat (beat must be under half of expires).
func newPuller(c jetstream.Consumer, batch int, expires, beat time.Duration) *puller {
	stopped, stop := context.WithCancel(context.Background())
	return &puller{c: c, batch: max(1, batch), expires: expires, beat: beat, stopped: stopped, stop: stop}
}

// Next returns the next message. Stop ends the open request (its inbox is unsubscribed, so the
// broker delivers nothing more to it); a message already on its way to it is redelivered after
// the consumer's AckWait, as the buffered messages of a stopped iterator were.
func (p *puller) Next() (jetstream.Msg, error) {
	for {
		select {
		case <-p.stopped.Done():
			return nil, jetstream.ErrMsgIteratorClosed
		default:
		}
		if p.cur == nil {
			// The request's expiry is the context's deadline, less a margin (FetchContext).
			ctx, cancel := context.WithTimeout(p.stopped, p.expires)
			b, err := p.c.Fetch(p.batch, jetstream.FetchContext(ctx), jetstream.FetchHeartbeat(p.beat))
			if err != nil {
				cancel()
				// The request could not be sent (a closed connection): no faster than
				// fetchRetry a time, so that a caller that calls again at once does not spin.
				select {
				case <-p.stopped.Done():
				case <-time.After(fetchRetry):
				}
				return nil, err
			}
			p.cur, p.curCancel = b, cancel
		}
		select {
		case msg, ok := <-p.cur.Messages():
			if ok {
				return msg, nil
			}
			// The request ended: full, expired, or failed. Expiry is no error (Fetch says
			// none); anything else goes to the caller, and the next call sends a new request.
			err := p.cur.Error()
			p.curCancel()
			p.cur = nil
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return nil, err
			}
		case <-p.stopped.Done():
			return nil, jetstream.ErrMsgIteratorClosed
		}
	}
}

// Stop ends the pulling: a Next waiting now, and every later one, returns
// jetstream.ErrMsgIteratorClosed.
func (p *puller) Stop() { p.stop() }
