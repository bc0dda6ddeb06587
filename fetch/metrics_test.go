package fetch

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

// TestMetrics: every attempt is counted by its status class, and successful bodies by size.
func TestMetrics(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/flaky":
			if calls.Add(1) == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.Header().Set("ETag", `"v1"`)
			_, _ = w.Write([]byte("hello"))
		case "/cached":
			w.WriteHeader(http.StatusNotModified)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	require.NoError(t, err)
	again, err := NewMetrics(reg) // a second client of the process shares the collectors
	require.NoError(t, err)
	require.Same(t, m.attempts, again.attempts)
	cfg := Config{Backoff: time.Millisecond, AllowPrivate: true, Metrics: m}.WithDefaults()

	d, err := GetDocument(t.Context(), cfg, srv.URL+"/flaky", Validators{})
	require.NoError(t, err)
	d.Close()
	_, err = GetDocument(t.Context(), cfg, srv.URL+"/missing", Validators{})
	require.Error(t, err)
	d, err = GetDocument(t.Context(), cfg, srv.URL+"/cached", Validators{ETag: `"v1"`})
	require.NoError(t, err)
	require.True(t, d.NotModified)
	_, err = GetDocument(t.Context(), Config{Attempts: 1, AllowPrivate: true, Metrics: m}.WithDefaults(), "http://127.0.0.1:1/", Validators{})
	require.Error(t, err)

	for code, want := range map[string]float64{"5xx": 1, "2xx": 1, "4xx": 1, "304": 1, "error": 1, "429": 0} {
		require.Equal(t, want, testutil.ToFloat64(m.attempts.WithLabelValues(code)), code)
	}
	require.Equal(t, 5.0, testutil.ToFloat64(m.bytes))
	require.Equal(t, 1, testutil.CollectAndCount(m.duration))
}
