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
