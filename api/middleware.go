package api

import (
	"crypto/subtle"
	"fmt"
	"github.com/harvester-dev/harvester/feeds"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"
)

// endpoint wraps a route's handler: access check, canonical path id, body cap, error answer.
func (s *server) endpoint(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.authorize(r, rt.access); err != nil {
			s.writeError(w, r, err)
			return
		}
		if rt.access == public {
			feeds.Public(w)
		}
		canonicalPathID(r)
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
		}
		if err := rt.handle(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// authorize checks the API key when the route's access level asks for it. A client that sent
// too many wrong keys (Deps.AuthLimiter) is refused with 429 and Retry-After, whatever key it
// sends now.
func (s *server) authorize(r *http.Request, a access) error {
	if a == open || a == read && !s.cfg.ProtectReads || a == public && !s.cfg.PrivateCatalog {
		return nil
	}
	if s.cfg.APIKey == "" {
		return errorf(http.StatusUnauthorized, "writes are disabled: HARVESTER_API_KEY is not set")
	}
	key := r.Header.Get("X-API-Key")
	if auth := r.Header.Get("Authorization"); key == "" && len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
		key = strings.TrimSpace(auth[7:])
	}
	if key == "" {
		return errorf(http.StatusUnauthorized, "missing API key: send X-API-Key: <key> or Authorization: Bearer <key>")
	}
	ok, wait := s.authLimit.Check(r, func() bool { return subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.APIKey)) == 1 })
	switch {
	case wait > 0:
		return tooManyKeys(wait)
	case !ok:
		return errorf(http.StatusUnauthorized, "invalid API key")
	}
	return nil
}

// dispatch serves the routes, answering unknown paths (404) and methods (405) in JSON where
// http.ServeMux would answer in plain text.
func (s *server) dispatch(w http.ResponseWriter, r *http.Request) {
	if _, pattern := s.mux.Handler(r); pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) == 0 {
		s.writeError(w, r, errorf(http.StatusNotFound, "no such resource: %s", r.URL.Path))
		return
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	s.writeError(w, r, errorf(http.StatusMethodNotAllowed, "method %s is not allowed on %s (allowed: %s)",
		r.Method, r.URL.Path, strings.Join(allowed, ", ")))
}

// logRequests logs one line per request at info, even when the handler panics.
func (s *server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		defer func() {
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "http request",
				slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", rec.statusCode()), slog.Duration("duration", time.Since(start)),
				slog.Int64("bytes", rec.bytes))
		}()
		next.ServeHTTP(rec, r)
	})
}

// recoverPanics answers a handler's panic with a JSON 500, or aborts the response when its
// header is already out (so the client does not take a truncated body for a whole one).
func (s *server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler { // the handler gave up on purpose and has logged why
				panic(p)
			}
			s.log.ErrorContext(r.Context(), "api: handler panicked", "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if rec, ok := w.(*recorder); !ok || rec.status != 0 {
				panic(http.ErrAbortHandler)
			}
			s.writeError(w, r, errorf(http.StatusInternalServerError, "internal server error"))
		}()
		next.ServeHTTP(w, r)
	})
}

// recorder remembers the status and size of a response. Unwrap lets http.ResponseController
// reach the underlying writer (to flush streamed CSV).
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *recorder) statusCode() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}
