package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// The scheduler serves /healthz and /readyz with --addr (the Kubernetes probes and compose
// health checks of deploy/ need it), and `harvester healthcheck` probes them.
func TestSchedulerServesHealthForHealthcheck(t *testing.T) {
	addr := freeAddr(t)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		done <- run(ctx, []string{"scheduler", "--addr", addr, "--database-url", dbtest.URL(t),
			"--nats-url", natstest.URL(t), "--search-index", "none"}, io.Discard, &stderr)
	}()
	t.Cleanup(func() {
		stop()
		require.Equal(t, exitOK, <-done, stderr.String())
	})
	var out bytes.Buffer
	require.Eventually(t, func() bool {
		out.Reset()
		return run(context.Background(), []string{"healthcheck", "--addr", addr}, &out, io.Discard) == exitOK
	}, 5*time.Minute, 50*time.Millisecond, "healthcheck of the scheduler's /readyz succeeded: %s", stderr.String())
	require.Contains(t, out.String(), `"status":"ready"`)
	require.Equal(t, exitOK, run(context.Background(), []string{"healthcheck", "--addr", addr, "--path", "/healthz"}, io.Discard, io.Discard))
}

func TestHealthcheckFailsOnUnreadyOrNoServer(t *testing.T) {
	unready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"status":"unavailable","error":"database: refused"}`)
	}))
	defer unready.Close()
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"healthcheck", "--addr", strings.TrimPrefix(unready.URL, "http://")}, io.Discard, &stderr)
	require.Equal(t, exitJobError, code)
	require.Contains(t, stderr.String(), "503 Service Unavailable")
	require.Contains(t, stderr.String(), "database: refused")

	stderr.Reset()
	code = run(context.Background(), []string{"healthcheck", "--addr", freeAddr(t), "--timeout", "5s"}, io.Discard, &stderr)
	require.Equal(t, exitJobError, code)
	require.Contains(t, stderr.String(), "healthcheck:")

	require.Equal(t, exitUsage, run(context.Background(), []string{"healthcheck", "--timeout", "0s"}, io.Discard, io.Discard))
}
