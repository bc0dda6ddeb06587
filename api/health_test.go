package api

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHealthz(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config, _ *Deps) { c.ProtectReads = true })
	r := b.get(t, "/healthz")
	require.Equal(t, http.StatusOK, r.status)
	require.JSONEq(t, `{"status":"ok"}`, string(r.body))
}

func TestReadyz(t *testing.T) {
	t.Parallel()
	ok := func(context.Context) error { return nil }
	tests := []struct {
		name   string
		checks map[string]func(context.Context) error
		status int
		body   string
	}{
		{"no checks", nil, http.StatusOK, `{"status":"ready"}`},
		{"all pass", map[string]func(context.Context) error{"database": ok, "nats": ok}, http.StatusOK, `{"status":"ready"}`},
		{"one fails", map[string]func(context.Context) error{"database": ok,
			"nats": func(context.Context) error { return errors.New("nats: no servers available for connection") }},
			http.StatusServiceUnavailable, `{"status":"unavailable","error":"nats: nats: no servers available for connection",
			"checks":{"nats":"nats: no servers available for connection"}}`},
		{"two fail", map[string]func(context.Context) error{
			"nats":     func(context.Context) error { return errors.New("down") },
			"database": func(context.Context) error { return errors.New("connection refused") }},
			http.StatusServiceUnavailable, `{"status":"unavailable","error":"database: connection refused",
			"checks":{"database":"connection refused","nats":"down"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(_ *Config, d *Deps) { d.Ready = tt.checks })
			r := b.get(t, "/readyz")
			require.Equal(t, tt.status, r.status)
			require.JSONEq(t, tt.body, string(r.body))
		})
	}

}

func TestMetrics(t *testing.T) {
	t.Parallel()
	requireError(t, setup(t).get(t, "/metrics"), http.StatusNotFound, "metrics are not enabled")

	b := setup(t, func(_ *Config, d *Deps) {
		d.Metrics = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			_, _ = w.Write([]byte("harvester_jobs_total 3\n"))
		})
	})
	r := b.get(t, "/metrics")
	require.Equal(t, http.StatusOK, r.status)
	require.Equal(t, "harvester_jobs_total 3\n", string(r.body))
}
