package api

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"time"
)

// readyTimeout bounds each readiness check.
const readyTimeout = 5 * time.Second

//go:embed openapi.json
var openAPIDocument []byte

// Health returns the handler of GET /healthz, /readyz and /metrics alone, answering as the
// API does: what a process without the API (a worker, the scheduler) serves. ready are the
// readiness checks by name (e.g. "database", "nats"); metrics is served at /metrics (nil:
// 404); logger gets one line per request (nil: slog.Default()). Other paths answer JSON 404.
func Health(ready map[string]func(context.Context) error, metrics http.Handler, logger *slog.Logger) http.Handler {
	s := &server{cfg: Config{}.WithDefaults(), log: cmp.Or(logger, slog.Default()), metrics: metrics, ready: ready,
		mux: http.NewServeMux()}
	s.mount(s.healthRoutes())
	return s
}

// healthz says the process serves HTTP; it checks nothing else.
func (s *server) healthz(w http.ResponseWriter, _ *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyStatus is the body of /readyz.
type readyStatus struct {
	Status string            `json:"status"`
	Error  string            `json:"error,omitempty"`
	Checks map[string]string `json:"checks,omitempty"` // failing checks only: name → error
}

// readyz runs every readiness check (in name order, each bounded by readyTimeout) and answers
// 503 naming each one that failed and why.
func (s *server) readyz(w http.ResponseWriter, r *http.Request) error {
	failed := map[string]string{}
	var first string
	for _, name := range slices.Sorted(maps.Keys(s.ready)) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		err := s.ready[name](ctx)
		cancel()
		if err != nil {
			failed[name] = err.Error()
			if first == "" {
				first = fmt.Sprintf("%s: %v", name, err)
			}
		}
	}
	if len(failed) > 0 {
		return writeJSON(w, http.StatusServiceUnavailable, readyStatus{Status: "unavailable", Error: first, Checks: failed})
	}
	return writeJSON(w, http.StatusOK, readyStatus{Status: "ready"})
}

// serveMetrics serves Deps.Metrics.
func (s *server) serveMetrics(w http.ResponseWriter, r *http.Request) error {
	if s.metrics == nil {
		return errorf(http.StatusNotFound, "metrics are not enabled")
	}
	s.metrics.ServeHTTP(w, r)
	return nil
}

// openAPI serves the OpenAPI 3.0.3 document of this API.
func (s *server) openAPI(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPIDocument)
	return nil
}
