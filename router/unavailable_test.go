package router

import (
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// A process that starts while its single nats-server cannot answer yet (restarting, restoring
// its streams: its requests time out) keeps trying instead of exiting; an error that is not
// the server's silence ends the tries at once. TestRestartNATS's worker once exited so, its
// start racing the restart under load.
func TestWhileUnavailableOnOneServer(t *testing.T) {
	e, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(e.Shutdown)
	nc, err := nats.Connect(e.URL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	require.Empty(t, nc.ConnectedClusterName(), "one server, no cluster")

	tries := 0
	err = whileUnavailable(context.Background(), nc, func(context.Context) error {
		if tries++; tries < 3 {
			return context.DeadlineExceeded
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 3, tries, "tried again after the server's silence")

	refused := errors.New("refused")
	tries = 0
	err = whileUnavailable(context.Background(), nc, func(context.Context) error { tries++; return refused })
	require.ErrorIs(t, err, refused)
	require.Equal(t, 1, tries, "another error is not retried")
}
