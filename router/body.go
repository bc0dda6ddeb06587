package router

import (
	"context"
	"fmt"
	"io"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/harvester-dev/harvester/harvest"
)

// WriteMessage implements harvest.BodyWriter over the claim check: a body of at most the
// message size (claims.threshold) becomes the message's payload; a longer one is streamed into
// RecordBucket while write writes it (jetstream.ObjectStore.Put reads it in chunks through a
// pipe) and the message names it in ClaimHeader, as the Publisher's check-in would, so that
// the body is never held whole (a job's report naming its 100,000 changed records is ~11 MB).
// When write or the store fails, the object's chunks are purged and the error returned.
func (b *Bus) WriteMessage(ctx context.Context, subject string, write func(io.Writer) error, ids ...string) (*harvest.Message, error) {
	w := &streamedBody{ctx: ctx, claims: b.pub.claims, limit: b.pub.claims.threshold()}
	if err := w.close(write(w)); err != nil {
		return nil, fmt.Errorf("write a %s body: %w", subject, err)
	}
	m := harvest.NewBodyMessage(subject, w.buf, ids...)
	if w.name != "" {
		m.Metadata.Set(ClaimHeader, w.name)
	}
	return m, nil
}

// streamedBody is a message body being written: held in buf up to limit bytes, then streamed
// into RecordBucket as the object name.
type streamedBody struct {
	ctx    context.Context
	claims *claims
	limit  int
	buf    []byte
	name   string
	pw     *io.PipeWriter
	put    chan error // Put's result, once the pipe is closed
}

func (w *streamedBody) Write(p []byte) (int, error) {
	if w.pw == nil {
		if len(w.buf)+len(p) <= w.limit {
			w.buf = append(w.buf, p...)
			return len(p), nil
		}
		if err := w.start(); err != nil {
			return 0, err
		}
	}
	return w.pw.Write(p)
}

// start begins the object's Put and sends it what buf holds.
func (w *streamedBody) start() error {
	obs, err := w.claims.store(w.ctx)
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	w.name, w.pw, w.put = "body-"+watermill.NewUUID(), pw, make(chan error, 1)
	go func() {
		_, err := obs.Put(w.ctx, jetstream.ObjectMeta{Name: w.name}, pr)
		pr.CloseWithError(cmpErr(err, io.ErrClosedPipe)) // a Put that failed stops the writer
		w.put <- err
	}()
	buf := w.buf
	w.buf = nil
	_, err = pw.Write(buf)
	return err
}

// cmpErr is err, or fallback when err is nil.
func cmpErr(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}

// close ends the body after write returned werr: the object's Put reads the end (or werr, and
// purges what it stored) and close returns werr joined with Put's error.
func (w *streamedBody) close(werr error) error {
	if w.pw == nil {
		return werr
	}
	_ = w.pw.CloseWithError(werr) // nil: Put reads io.EOF
	err := <-w.put
	if werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("store a message body in %s: %w", w.claims.dep.bucket(), err)
	}
	return nil
}

// Bus is a harvest.BodyWriter.
var _ harvest.BodyWriter = (*Bus)(nil)
