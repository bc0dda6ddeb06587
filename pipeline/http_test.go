package pipeline_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// startAPI runs a pipeline that serves only the web UI and the API, with the given HTTP bounds.
func startAPI(t *testing.T, hc pipeline.HTTPConfig) string {
	t.Helper()
	p, err := pipeline.New(context.Background(), pipeline.Config{Store: dbtest.Store(t), NATSURL: natstest.URL(t),
		Logger: slog.New(slog.DiscardHandler), SearchIndex: "none", API: &api.Config{APIKey: "k"},
		Addr: "127.0.0.1:0", HTTP: hc})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	require.NoError(t, p.Start(context.Background()))
	return p.Addr().String()
}

// TestSlowBodyConnectionClosed: a client that sends a request's header and then its body
// slower than HTTPConfig.ReadTimeout allows (here: never) has its connection closed by the
// server, instead of holding it and a file descriptor for ever.
func TestSlowBodyConnectionClosed(t *testing.T) {
	addr := startAPI(t, pipeline.HTTPConfig{ReadTimeout: 200 * time.Millisecond})
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /sign-in HTTP/1.1\r\nHost: harvester\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\napi_key=")
	require.NoError(t, err)
	// A safety net only: the server is expected to close the connection long before.
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(time.Minute)))
	_, err = io.Copy(io.Discard, conn) // returns nil at EOF: the server closed the connection
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server still held the slow connection after a minute")
}

// TestConnectionCap: with HTTPConfig.MaxConns 2, a third connection is not served while two
// are open, and is served once one of them closes.
func TestConnectionCap(t *testing.T) {
	addr := startAPI(t, pipeline.HTTPConfig{MaxConns: 2})
	healthz := func(conn net.Conn, r *bufio.Reader) (*http.Response, error) {
		if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: harvester\r\n\r\n"); err != nil {
			return nil, err
		}
		res, err := http.ReadResponse(r, nil)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		return res, err
	}
	var open []net.Conn
	for range 2 {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer conn.Close()
		res, err := healthz(conn, bufio.NewReader(conn)) // served, and kept alive
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode)
		open = append(open, conn)
	}
	third, err := net.Dial("tcp", addr) // the kernel accepts it; the server does not take it yet
	require.NoError(t, err)
	defer third.Close()
	r := bufio.NewReader(third)
	require.NoError(t, third.SetReadDeadline(time.Now().Add(300*time.Millisecond)))
	_, err = healthz(third, r)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "a third connection was served beyond the cap of 2")

	require.NoError(t, open[0].Close())
	require.NoError(t, third.SetReadDeadline(time.Now().Add(time.Minute))) // a safety net only
	res, err := http.ReadResponse(r, nil)                                  // the request sent above, now served
	require.NoError(t, err, "the third connection was not served after one of the two closed")
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
}
