package router

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// clusterPatience is how long a process that starts while its JetStream cluster cannot
// answer (a node just died and its leaderships are being elected again, or the nodes are
// starting together) keeps trying to create its streams and consumers before it gives up.
const clusterPatience = 2 * time.Minute

// serverPatience is clusterPatience for a server that is not part of a cluster: one that is
// restarting (restoring its streams) answers late or not at all for a while; a process that
// starts then waits for it rather than exit, but a server that never answers (JetStream not
// enabled) is reported sooner than a cluster's election is given up on.
const serverPatience = 30 * time.Second

// attemptTimeout bounds one attempt of whileUnavailable.
const attemptTimeout = 10 * time.Second

// whileUnavailable runs op until it succeeds, fails for a reason other than a JetStream server
// or cluster that cannot answer yet, ctx ends, or clusterPatience (serverPatience on a server
// that is not part of a cluster) has passed; it returns op's last error.
func whileUnavailable(ctx context.Context, nc *nats.Conn, op func(context.Context) error) error {
	patience := serverPatience
	if nc.ConnectedClusterName() != "" {
		patience = clusterPatience
	}
	giveUp := time.Now().Add(patience)
	wait := 100 * time.Millisecond
	for {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		err := op(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !clusterUnavailable(err) || time.Now().After(giveUp) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// clusterUnavailable says whether err is what a JetStream cluster answers while it elects a
// leader or misses a peer: no answer in time, or a 503 (no meta leader, insufficient
// resources while a peer is thought offline).
func clusterUnavailable(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) ||
		(errors.As(err, &apiErr) && apiErr.Code == http.StatusServiceUnavailable)
}
