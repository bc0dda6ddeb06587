package pipeline

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

// A StreamReplicas out of 1..5, or above 1 on the in-process server, is a configuration error.
func TestStreamReplicasConfig(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{NATSURL: "nats://127.0.0.1:1", StreamReplicas: 6}, "StreamReplicas 6 is not in 1..5"},
		{Config{NATSURL: "nats://127.0.0.1:1", StreamReplicas: -1}, "StreamReplicas -1 is not in 1..5"},
		{Config{StreamReplicas: 3}, "StreamReplicas 3 needs a JetStream cluster"},
	} {
		c.cfg.Logger, c.cfg.DataDir = logger, t.TempDir()
		_, err := New(context.Background(), c.cfg)
		require.ErrorIs(t, err, ErrConfig)
		require.ErrorContains(t, err, c.want)
	}
}
