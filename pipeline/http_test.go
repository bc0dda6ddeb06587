package pipeline_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// startAPI runs a pipeline that serves only the web UI and the API, with the given HTTP
// bounds, and returns its address.
func startAPI(t *testing.T, hc pipeline.HTTPConfig) string {
	t.Helper()
	return startAPIOn(t, dbtest.Store(t), hc)
}

func startAPIOn(t *testing.T, st store.Store, hc pipeline.HTTPConfig) string {
	t.Helper()
	p, err := pipeline.New(context.Background(), pipeline.Config{Store: st, NATSURL: natstest.URL(t),
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

// TestStreamOutlivesWriteTimeout: the record errors CSV, a stream, moves its own write
// deadline on, so it is served whole even when HTTPConfig.WriteTimeout has passed before its
// first byte (here 1 ns), while an ordinary answer is then cut.
func TestStreamOutlivesWriteTimeout(t *testing.T) {
	st := dbtest.Store(t)
	ctx := t.Context()
	org, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Stream", Slug: "stream-" + uuid.NewString()[:8]})
	require.NoError(t, err)
	src, err := st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: org.ID, Name: "Stream",
		URL: "https://example.gov/" + uuid.NewString() + "/data.json", SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
		Identifier: "b", Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: "{}", SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	_, _, err = st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "b", Identifier: "b", RecordID: rec.ID,
		Outcome: harvest.OutcomeErrored, Status: harvest.RecordErrorValidation, Errors: []harvest.RecordError{
			{Type: "ValidationError", Message: "$.title: missing property", Severity: harvest.SeverityError}}})
	require.NoError(t, err)
	addr := startAPIOn(t, st, pipeline.HTTPConfig{WriteTimeout: time.Nanosecond})

	_, err = http.Get("http://" + addr + "/api/v1/harvest_jobs/" + job.ID)
	require.Error(t, err, "an ordinary answer is cut by the 1 ns WriteTimeout")
	status, body := get(t, "http://"+addr+"/api/v1/harvest_jobs/"+job.ID+"/record_errors?format=csv")
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, "$.title: missing property")
}

// startHTTP runs a pipeline that serves the web UI and the API at Addr and the probes at
// OpsAddr, with the given HTTP bounds.
func startHTTP(t *testing.T, hc pipeline.HTTPConfig) *pipeline.Pipeline {
	t.Helper()
	p, err := pipeline.New(context.Background(), pipeline.Config{Store: dbtest.Store(t), NATSURL: natstest.URL(t),
		Logger: slog.New(slog.DiscardHandler), SearchIndex: "none", API: &api.Config{APIKey: "k"},
		Addr: "127.0.0.1:0", OpsAddr: "127.0.0.1:0", HTTP: hc})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	require.NoError(t, p.Start(context.Background()))
	return p
}

// clientFrom is an HTTP client whose connections come from the loopback address ip (Linux
// routes all of 127.0.0.0/8 to lo): another client, as the server counts them. Its timeout
// is a safety net only.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: d.DialContext}}
}

// slowBody is the start of a request whose body never comes.
const slowBody = "POST /sign-in HTTP/1.1\r\nHost: harvester\r\n" +
	"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\napi_key="

// TestOneClientCannotFillConnections replays a flood: 420 connections from one address
// (127.0.0.1) each send a request's header and hold back its body (the read timeout is an hour
// here, so the server lets none go). The client keeps HTTPConfig.MaxConnsPerClient (32) of
// them and the others are answered 429 and closed at once, so the shared cap of 256 is not
// reached: the public port serves another client (127.0.0.2), and the ops listener answers
// /healthz, /readyz and /metrics even to the flooding address, which the public port refuses.
func TestOneClientCannotFillConnections(t *testing.T) {
	p := startHTTP(t, pipeline.HTTPConfig{ReadTimeout: time.Hour})
	addr, ops := p.Addr().String(), "http://"+p.OpsAddr().String()
	const flood, perClient = 420, 32
	var ended atomic.Int32
	for range flood {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close() })
		_, _ = io.WriteString(conn, slowBody) // fails only if the server refused the connection already
		go func() {
			_, _ = io.Copy(io.Discard, conn) // until the server closes it
			ended.Add(1)
		}()
	}
	waitFor(t, "the connections past the client's cap to be closed", func() bool { return ended.Load() >= flood-perClient })

	status, body := get(t, ops+"/healthz")
	require.Equal(t, http.StatusOK, status, body)
	status, body = get(t, ops+"/readyz")
	require.Equal(t, http.StatusOK, status, body)
	status, body = get(t, ops+"/metrics")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, `harvester_http_connections_refused_total{listener="http"} 388`)

	res, err := clientFrom("127.0.0.2").Get("http://" + addr + "/healthz")
	require.NoError(t, err, "another client is not served while one floods the public port")
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	conn, err := net.Dial("tcp", addr) // the flooding address, once more
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(time.Minute))) // a safety net only
	res, err = http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	require.Equal(t, "1", res.Header.Get("Retry-After"))
	require.Equal(t, "too many connections from your address: close some first\n", string(b))
	require.EqualValues(t, flood-perClient, ended.Load(), "the server let go of a connection under the client's cap")
}

// TestConnsPerClient: a client's connections past HTTPConfig.MaxConnsPerClient are refused
// until one of its own closes; another client is not held to the first one's count, and a
// trusted proxy, which carries many clients, is not capped.
func TestConnsPerClient(t *testing.T) {
	p := startHTTP(t, pipeline.HTTPConfig{MaxConnsPerClient: 2,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32")}})
	addr := p.Addr().String()
	// open dials from ip and GETs /healthz, keeping the connection: its status, or 0 when the
	// server closed the connection without an answer.
	open := func(ip string) (net.Conn, int) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		conn, err := d.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close() })
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(time.Minute))) // a safety net only
		_, _ = io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: harvester\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return conn, 0
		}
		res.Body.Close()
		return conn, res.StatusCode
	}
	first, status := open("127.0.0.2")
	require.Equal(t, http.StatusOK, status)
	_, status = open("127.0.0.2")
	require.Equal(t, http.StatusOK, status)
	_, status = open("127.0.0.2")
	require.Equal(t, http.StatusTooManyRequests, status, "a third connection of one client")
	_, status = open("127.0.0.4")
	require.Equal(t, http.StatusOK, status, "another client")
	for i := range 4 {
		_, status = open("127.0.0.3")
		require.Equal(t, http.StatusOK, status, "connection %d of a trusted proxy", i+1)
	}
	require.NoError(t, first.Close())
	waitFor(t, "the client's closed connection to free its place", func() bool {
		_, status := open("127.0.0.2")
		return status == http.StatusOK
	})
}
