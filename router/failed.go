package router

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/harvester-dev/harvester/harvest"
)

// FailedFilter selects messages of the failed subjects (harvest.v1.failed.<stage>).
type FailedFilter struct {
	// JobID keeps the messages of this job (harvest.MetaJobID); required.
	JobID string
	// Stage keeps the messages of this stage's failed subject; "" keeps every stage's.
	Stage string
	// Since keeps the messages stored at or after this time; zero keeps every message the
	// stream still holds (30 days).
	Since time.Time
}

// ScanFailed calls fn with the stage and body of every message of the job on the failed
// subjects that p selects (a body sent by reference is fetched; one whose object is gone is
// passed as nil), oldest first, up to the last message stored when the scan began
// (so records that fail again during the replay are not replayed in turn). It reads through
// an ephemeral consumer that acks nothing, so the stream keeps every message.
func (b *Bus) ScanFailed(ctx context.Context, p FailedFilter, fn func(stage string, data []byte) error) error {
	name := b.dep.stream(StreamFailed)
	stream, err := b.js.Stream(ctx, name)
	if err != nil {
		return fmt.Errorf("stream %s: %w", name, err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("stream %s: %w", name, err)
	}
	last := info.State.LastSeq
	if info.State.Msgs == 0 {
		return nil
	}
	cfg := jetstream.ConsumerConfig{FilterSubject: b.dep.subject(harvest.SubjectFailedPrefix + ">"),
		AckPolicy: jetstream.AckNonePolicy, DeliverPolicy: jetstream.DeliverAllPolicy, InactiveThreshold: time.Minute}
	if p.Stage != "" {
		cfg.FilterSubject = b.dep.subject(harvest.SubjectFailedPrefix + p.Stage)
	}
	if !p.Since.IsZero() {
		since := p.Since.UTC()
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &since
	}
	cons, err := stream.CreateConsumer(ctx, cfg)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	defer func() { _ = stream.DeleteConsumer(context.WithoutCancel(ctx), cons.CachedInfo().Name) }()
	if cons.CachedInfo().NumPending == 0 {
		return nil
	}
	for {
		batch, err := cons.FetchNoWait(256) // the stored messages, at once: a page view waits on it
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		n, done := 0, false
		for msg := range batch.Messages() {
			n++
			meta, err := msg.Metadata()
			if err != nil {
				return fmt.Errorf("read %s: %w", name, err)
			}
			if meta.Sequence.Stream > last {
				done = true
				continue
			}
			if msg.Headers().Get(harvest.MetaJobID) == p.JobID {
				data, err := b.pub.claims.body(ctx, msg.Headers(), msg.Data())
				if errors.Is(err, jetstream.ErrObjectNotFound) {
					data, err = nil, nil // its body is gone: counted as skipped
				}
				if err != nil {
					return fmt.Errorf("read %s: %w", name, err)
				}
				if err := fn(strings.TrimPrefix(b.dep.logical(msg.Subject()), harvest.SubjectFailedPrefix), data); err != nil {
					return err
				}
			}
			if meta.NumPending == 0 || meta.Sequence.Stream >= last {
				done = true
			}
		}
		if err := batch.Error(); err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if done || n == 0 {
			return nil
		}
	}
}
