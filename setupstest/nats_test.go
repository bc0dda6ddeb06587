package setupstest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// failsafe bounds a wait that only a hung service or job exceeds: long, so that it never
// decides a healthy run on a loaded machine.
const failsafe = 10 * time.Minute

// natsServerURL starts a nats-server process with JetStream (the binary scripts/services.sh puts
// on PATH, as an operator runs it) on a free loopback port, storing in the test's temporary
// directory, and returns its URL once JetStream answers; the process is killed at cleanup.
// Without nats-server on PATH the test is skipped, or fails in CI (HARVESTER_TEST_REQUIRE_POSTGRES).
func natsServerURL(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("nats-server"); err != nil {
		msg := "no nats-server on PATH (eval \"$(scripts/services.sh)\" builds it and puts it on PATH)"
		if os.Getenv("HARVESTER_TEST_REQUIRE_POSTGRES") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	dir := t.TempDir()
	logPath := filepath.Join(dir, "nats.log")
	logf, err := os.Create(logPath)
	require.NoError(t, err)
	defer logf.Close()
	cmd := exec.Command("nats-server", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", filepath.Join(dir, "jetstream"))
	cmd.Stdout, cmd.Stderr = logf, logf
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	for deadline := time.Now().Add(failsafe); ; {
		err := jetStreamAnswers(url)
		if err == nil {
			return url
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("nats-server exited before it was ready: %s", b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nats-server at %s not ready after %s: %v", url, failsafe, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// jetStreamAnswers asks the server at url for the account's JetStream info.
func jetStreamAnswers(url string) error {
	nc, err := nats.Connect(url, nats.Timeout(time.Second))
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
