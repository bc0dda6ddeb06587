package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPost: a POST sends its body and media type on every try (a 503 is retried with the same
// body), returns the answer like Get, and fails as an *Error naming POST and keeping the start
// of an error answer (an OGC ExceptionReport).
func TestPost(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/xml" || string(body) != "<q/>" {
			http.Error(w, "bad request", http.StatusTeapot)
			return
		}
		switch r.URL.Path {
		case "/flaky":
			if calls.Add(1) == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			_, _ = io.WriteString(w, "<answer/>")
		case "/refused":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, "<ExceptionReport/>")
		}
	}))
	defer srv.Close()
	c := Config{AllowPrivate: true, Backoff: time.Millisecond, MaxBackoff: time.Millisecond}.WithDefaults()
	f, err := Post(context.Background(), c, srv.URL+"/flaky", "application/xml", []byte("<q/>"))
	require.NoError(t, err)
	defer f.Close()
	got, err := io.ReadAll(f)
	require.NoError(t, err)
	require.Equal(t, "<answer/>", string(got))
	require.EqualValues(t, 2, calls.Load(), "retried once, with its body")

	_, err = Post(context.Background(), c, srv.URL+"/refused", "application/xml", []byte("<q/>"))
	var fe *Error
	require.True(t, errors.As(err, &fe), "%v", err)
	require.Equal(t, "POST "+srv.URL+"/refused: HTTP 400 Bad Request", err.Error())
	require.Equal(t, "<ExceptionReport/>", string(fe.Page))
}
