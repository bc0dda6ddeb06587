package router

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Claim check (DESIGN.md, Messages): a message whose body is larger than claimThreshold (a
// record of up to extract.Config.MaxRecordBytes, 16 MiB by default, on any hop) does not fit in
// a NATS message (max_payload is 1 MiB by default). The Publisher stores such a body as an
// object of the JetStream object store bucket RecordBucket and sends the message with an empty
// body and the object's name in the ClaimHeader header; the Subscriber fetches the body back
// before the handler sees the message, so no stage knows. After a work message is acked (and
// JetStream confirmed the ack) its object is deleted; the objects of messages kept on the
// failed subjects stay as long as those messages (the bucket's TTL is the failed stream's
// MaxAge), so that Replay can read them. Works the same on the in-process server and on an
// external NATS server.

// RecordBucket is the object store bucket of message bodies sent by reference, as the default
// deployment names it; a deployment with another prefix P has P-harvest-records (names.bucket).
const RecordBucket = "harvest-records"

// ClaimHeader names the object of RecordBucket that holds a message's body.
const ClaimHeader = "Harvester-Claim"

// claimThreshold is the largest body sent in the message itself: 900 KiB leaves room for the
// headers within NATS's default max_payload of 1 MiB (a server with a smaller max_payload
// lowers it, see threshold).
const claimThreshold = 900 << 10

// failedKeep is how long the failed and report streams keep messages, and RecordBucket its
// objects.
const failedKeep = 30 * 24 * time.Hour

// recordBucketConfig is the configuration of deployment d's RecordBucket, kept on d.replicas
// servers (at least 1).
func recordBucketConfig(d deployment) jetstream.ObjectStoreConfig {
	return jetstream.ObjectStoreConfig{Bucket: d.bucket(), Storage: jetstream.FileStorage, TTL: failedKeep,
		Replicas:    max(1, d.replicas),
		Description: "Harvester message bodies over the message size, sent by reference (claim check)"}
}

// claims opens the deployment's RecordBucket once, on first use, for a Publisher or a
// Subscriber.
type claims struct {
	js jetstream.JetStream
	// dep names the bucket and says its replica count when it must be created (ensureStreams).
	dep deployment
	mu  sync.Mutex
	obs jetstream.ObjectStore
}

func (c *claims) store(ctx context.Context) (jetstream.ObjectStore, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.obs != nil {
		return c.obs, nil
	}
	obs, err := c.js.ObjectStore(ctx, c.dep.bucket())
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		obs, err = c.js.CreateOrUpdateObjectStore(ctx, recordBucketConfig(c.dep))
	}
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", c.dep.bucket(), err)
	}
	c.obs = obs
	return obs, nil
}

// threshold is the largest body nm may carry itself on this connection.
func (c *claims) threshold() int {
	if mp := int(c.js.Conn().MaxPayload()); mp > 0 {
		return min(claimThreshold, mp-mp/8)
	}
	return claimThreshold
}

// claimTimeout bounds storing or fetching one body.
const claimTimeout = time.Minute

// checkIn stores nm's body in RecordBucket when it is over the threshold, and leaves nm with
// an empty body and the object's name in ClaimHeader.
func (c *claims) checkIn(ctx context.Context, nm *nats.Msg) error {
	if len(nm.Data) <= c.threshold() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, claimTimeout)
	defer cancel()
	obs, err := c.store(ctx)
	if err != nil {
		return err
	}
	name := "body-" + watermill.NewUUID()
	if _, err := obs.PutBytes(ctx, name, nm.Data); err != nil {
		return fmt.Errorf("store a %d-byte message body for %s in %s: %w", len(nm.Data), nm.Subject, c.dep.bucket(), err)
	}
	if nm.Header == nil {
		nm.Header = nats.Header{}
	}
	nm.Header.Set(ClaimHeader, name)
	nm.Data = nil
	return nil
}

// body returns the body of a message: its data, or the object its ClaimHeader names
// (jetstream.ErrObjectNotFound when the object is gone).
func (c *claims) body(ctx context.Context, h nats.Header, data []byte) ([]byte, error) {
	name := h.Get(ClaimHeader)
	if name == "" {
		return data, nil
	}
	ctx, cancel := context.WithTimeout(ctx, claimTimeout)
	defer cancel()
	obs, err := c.store(ctx)
	if err != nil {
		return nil, err
	}
	b, err := obs.GetBytes(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("fetch message body %s from %s: %w", name, c.dep.bucket(), err)
	}
	return b, nil
}

// ack acks the handled message m. One whose body travelled by reference (ClaimHeader) is acked
// with the broker's confirmation (DoubleAck, within claimTimeout of ctx, which may have ended)
// and only then is its body's object deleted (release), as the message cannot come back. It
// returns the ack's error.
func (c *claims) ack(ctx context.Context, m jetstream.Msg) error {
	if m.Headers().Get(ClaimHeader) == "" {
		return m.Ack()
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimTimeout)
	defer cancel()
	if err := m.DoubleAck(actx); err != nil {
		return err
	}
	c.release(m.Headers())
	return nil
}

// release deletes the object a handled message's ClaimHeader names; an error leaves it to the
// bucket's TTL.
func (c *claims) release(h nats.Header) {
	name := h.Get(ClaimHeader)
	if name == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
	defer cancel()
	if obs, err := c.store(ctx); err == nil {
		_ = obs.Delete(ctx, name)
	}
}
