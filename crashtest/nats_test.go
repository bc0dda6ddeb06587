package crashtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// natsServer is a nats-server process with JetStream, on a fixed port and store directory so
// that it can be killed, restarted, and restarted with its store wiped.
type natsServer struct {
	t    *testing.T
	port int
	dir  string
	log  string
	// name is the server's name in a cluster (its config file's server_name); "" alone.
	name string
	// args are a cluster node's flags beyond its address: its config file (which names the
	// store directory dir), monitoring port and routes; nil for a server alone.
	args []string
	// httpPort is the monitoring port of a cluster node, whose /healthz says when it is ready.
	httpPort int
	cmd      *exec.Cmd
	// exited is closed once cmd has exited (its Wait returned).
	exited <-chan struct{}
}

func startNATS(t *testing.T) *natsServer {
	t.Helper()
	requireNATSServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	dir := t.TempDir()
	n := &natsServer{t: t, port: port, dir: filepath.Join(dir, "jetstream"), log: filepath.Join(dir, "nats.log")}
	n.start()
	t.Cleanup(n.kill)
	return n
}

func (n *natsServer) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", n.port) }

func (n *natsServer) start() {
	n.t.Helper()
	n.spawn()
	n.waitReady()
}

// spawn starts the server process without waiting for it.
func (n *natsServer) spawn() {
	n.t.Helper()
	logf, err := os.OpenFile(n.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(n.t, err)
	defer logf.Close()
	args := []string{"-a", "127.0.0.1", "-p", strconv.Itoa(n.port)}
	if n.args == nil { // a cluster node's config file names its store directory
		args = append(args, "-js", "-sd", n.dir)
	}
	n.cmd = exec.Command("nats-server", append(args, n.args...)...)
	n.cmd.Stdout, n.cmd.Stderr = logf, logf
	require.NoError(n.t, n.cmd.Start())
	exited := make(chan struct{})
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); close(exited) }(n.cmd)
	n.exited = exited
}

// waitReady returns once the server is ready: JetStream answers (alone), or the node's
// /healthz says JetStream is up and current with the cluster (a cluster node). A server that
// exits is reported at once, one that is only slow to start (a loaded machine recovering its
// store, a node catching up) is waited for.
func (n *natsServer) waitReady() {
	n.t.Helper()
	exited := n.exited
	deadline := time.Now().Add(failsafe)
	for {
		var err error
		if n.httpPort != 0 {
			err = n.healthy()
			if err == nil {
				return
			}
		} else if err = n.jetStreamAnswers(); err == nil {
			return
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(n.log)
			n.t.Fatalf("nats-server on port %d exited before it was ready: %s", n.port, tail(b, 2<<10))
		default:
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("nats-server on port %d not ready after %s: %v", n.port, failsafe, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// jetStreamAnswers asks the server for the account's JetStream info.
func (n *natsServer) jetStreamAnswers() error {
	nc, err := nats.Connect(n.URL(), nats.Timeout(time.Second))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

// healthy asks a cluster node's /healthz, which answers 200 once JetStream is up, in contact
// with the cluster's meta leader, and current on every stream and consumer it holds.
func (n *natsServer) healthy() error {
	client := http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", n.httpPort))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/healthz: %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	return nil
}

// requireNATSServer skips the test (fails it in CI) unless the nats-server on PATH is the
// version go.mod pins: the crash tests exercise the server users run, not whatever is
// installed (Debian's 2.9.10 panicked in processServiceImport after a wipe and restart).
// scripts/services.sh builds that version from the module cache and puts it first on PATH.
func requireNATSServer(t *testing.T) {
	t.Helper()
	fail := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...) + " (eval \"$(scripts/services.sh)\" builds it and puts it on PATH)"
		if os.Getenv("HARVESTER_TEST_REQUIRE_POSTGRES") != "" { // CI: the services are required
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	want := pinnedNATSServer()
	out, err := exec.Command("nats-server", "--version").Output()
	if err != nil {
		fail("the crash tests need nats-server %s on PATH: %v", want, err)
	}
	if got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "nats-server:")); got != want {
		fail("the crash tests need nats-server %s, the version go.mod pins; PATH has %s", want, got)
	}
}

// pinnedNATSServer is the github.com/nats-io/nats-server/v2 version that go.mod pins (the test
// runs in crashtest/, beside the module's go.mod one level up).
func pinnedNATSServer() string {
	b, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		return "(unknown: " + err.Error() + ")"
	}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "github.com/nats-io/nats-server/v2" {
			return f[1]
		}
	}
	return "(unknown: not in go.mod)"
}

// kill ends the server with SIGKILL.
func (n *natsServer) kill() {
	if n.cmd == nil {
		return
	}
	_ = n.cmd.Process.Kill()
	<-n.exited
	n.cmd = nil
}

// wipe deletes the server's store directory: every stream, consumer and message is gone, as
// after an OS crash that lost what JetStream had not synced to disk.
func (n *natsServer) wipe() {
	require.NoError(n.t, os.RemoveAll(n.dir))
}
