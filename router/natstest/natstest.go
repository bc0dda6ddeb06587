// Package natstest runs a real nats-server with JetStream inside the test process, storing in
// the test's temporary directory (the nats-server test suite's RunBasicJetStreamServer).
package natstest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/router"
)

// URL starts a JetStream-enabled server on a random loopback port and returns its client URL;
// the server shuts down when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	e, err := router.StartEmbedded(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(e.Shutdown)
	return e.URL()
}
