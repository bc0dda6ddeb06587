package router

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Embedded is a nats-server with JetStream running inside this process: the bus of the
// embedded default, when no NATS_URL is given. It listens on a random loopback port only.
type Embedded struct {
	srv *server.Server
}

// StartEmbedded starts an in-process nats-server that keeps its JetStream data under dir and
// returns once it accepts connections (or an error after 10 seconds).
func StartEmbedded(dir string) (*Embedded, error) {
	s, err := server.NewServer(&server.Options{ServerName: "harvester-embedded", Host: "127.0.0.1",
		Port: server.RANDOM_PORT, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		return nil, fmt.Errorf("embedded nats-server: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("embedded nats-server in %s did not start within 10s", dir)
	}
	return &Embedded{srv: s}, nil
}

// URL is the client URL of the embedded server.
func (e *Embedded) URL() string { return e.srv.ClientURL() }

// Shutdown stops the server and waits for it.
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}
