package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
)

// freeAddr returns a loopback address with a port nobody listens on right now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// natsServer is a nats-server process with JetStream of the bench's own, storing under dir,
// so that no other harvester on the machine shares its durable consumers.
type natsServer struct {
	cmd *exec.Cmd
	url string
}

// startNATS starts the nats-server binary found on PATH (Debian's 2.9, as scripts/services.sh
// installs) on a free loopback port, and returns once it answers (or an error after 10 s).
func startNATS(dir string) (*natsServer, error) {
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		return nil, fmt.Errorf("no nats-server on PATH (scripts/services.sh installs it; or pass -nats-url, or -embedded): %w", err)
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "-js", "-sd", filepath.Join(dir, "nats"), "-a", host, "-p", port)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // dies with the bench
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start nats-server: %w", err)
	}
	s := &natsServer{cmd: cmd, url: "nats://" + addr}
	deadline := time.Now().Add(10 * time.Second)
	for {
		nc, err := nats.Connect(s.url, nats.Timeout(time.Second))
		if err == nil {
			nc.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("nats-server on %s did not answer within 10s: %w", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *natsServer) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// scratchDatabase creates an empty database named bench_<random> on the Postgres server of
// base and returns its URL and a function that drops it. pgxpool settings in base's query
// (pool_max_conns, …) are kept in the returned URL, for the harvester's pool.
func scratchDatabase(ctx context.Context, base string) (dbURL string, drop func(), err error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, fmt.Errorf("database URL: %w", err)
	}
	base = withoutPoolParams(u)
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, fmt.Errorf("connect to Postgres at %s: %w", u.Redacted(), err)
	}
	defer conn.Close(ctx)
	name := "bench_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("create database %s: %w", name, err)
	}
	u.Path = "/" + name
	drop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return
		}
		defer conn.Close(ctx)
		_, _ = conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
	}
	return u.String(), drop, nil
}

// withoutPoolParams is u without pgxpool's settings (pool_*), which a single pgx connection
// would send to the server as unknown run-time parameters.
func withoutPoolParams(u *url.URL) string {
	c := *u
	q := c.Query()
	for k := range q {
		if strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	c.RawQuery = q.Encode()
	return c.String()
}
