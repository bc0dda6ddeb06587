package router

import (
	"context"
	"errors"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// recreateMu makes the subscriptions and publishes of one process that all find the streams
// gone at once (a broker restarted with its store wiped) create them once, one after another,
// rather than each sending every stream's create request to a broker that is just starting.
var recreateMu sync.Mutex

// recreateStreams creates deployment d's streams again (ensureStreams) when the broker lost
// them; streams that exist are left alone.
func recreateStreams(ctx context.Context, js jetstream.JetStream, d deployment) error {
	recreateMu.Lock()
	defer recreateMu.Unlock()
	for _, cfg := range streamConfigs(d) {
		if _, err := js.Stream(ctx, cfg.Name); errors.Is(err, jetstream.ErrStreamNotFound) {
			return ensureStreams(ctx, js, d)
		} else if err != nil {
			return err
		}
	}
	if _, err := js.ObjectStore(ctx, d.bucket()); errors.Is(err, jetstream.ErrBucketNotFound) {
		return ensureStreams(ctx, js, d)
	} else if err != nil {
		return err
	}
	return nil
}
