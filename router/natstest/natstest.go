// Package natstest runs a real nats-server with JetStream inside the test process, storing in
// the test's temporary directory (the nats-server test suite's RunBasicJetStreamServer).
package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/require"
)

// URL starts a JetStream-enabled server on a random loopback port and returns its client URL;
// the server shuts down when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s.ClientURL()
}
