package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// apiError is an error with the status and message the client gets.
type apiError struct {
	Status  int
	Message string
	Fields  map[string]string // 422: what is wrong with each bad field
	// RetryAfter is the Retry-After header of a 429, in seconds; 0: none.
	RetryAfter int
}

func (e *apiError) Error() string { return e.Message }

func errorf(status int, format string, args ...any) *apiError {
	return &apiError{Status: status, Message: fmt.Sprintf(format, args...)}
}

// storeError says what a failed store call was about, for the messages of its 404 and 409:
// the store's own error text can hold driver detail that clients must not see.
type storeError struct {
	err      error
	notFound string
	conflict string
}

func (e *storeError) Error() string { return e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// describe annotates a store error with the 404 and 409 messages; nil stays nil.
func describe(err error, notFound, conflict string) error {
	if err == nil {
		return nil
	}
	return &storeError{err: err, notFound: notFound, conflict: conflict}
}

// errorBody is the JSON of every error response.
type errorBody struct {
	Error  string            `json:"error"`
	Fields map[string]string `json:"fields,omitempty"`
}

// errorStatus maps an error to the status and body the client gets. It is the one place where
// store and trigger errors become HTTP statuses; anything it does not know is a 500 that says
// nothing about its cause.
func errorStatus(err error) (int, errorBody) {
	var (
		ae  *apiError
		se  *storeError
		sce *sources.Error
		mbe *http.MaxBytesError
	)
	errors.As(err, &se)
	switch {
	case errors.As(err, &ae):
		return ae.Status, errorBody{Error: ae.Message, Fields: ae.Fields}
	case errors.As(err, &sce):
		return sce.Status(), errorBody{Error: sce.Message, Fields: sce.Fields}
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, errorBody{Error: fmt.Sprintf("the request body is larger than %d bytes", mbe.Limit)}
	case errors.Is(err, store.ErrNotFound), errors.Is(err, jobs.ErrUnknownSource):
		if se != nil && se.notFound != "" {
			return http.StatusNotFound, errorBody{Error: se.notFound}
		}
		return http.StatusNotFound, errorBody{Error: "not found"}
	case errors.Is(err, store.ErrConflict), errors.Is(err, jobs.ErrJobInProgress):
		if se != nil && se.conflict != "" {
			return http.StatusConflict, errorBody{Error: se.conflict}
		}
		return http.StatusConflict, errorBody{Error: "conflict with the current state of the resource"}
	}
	return http.StatusInternalServerError, errorBody{Error: "internal server error"}
}

// writeError answers err; the causes of 500s are logged, never sent.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, body := errorStatus(err)
	if status == http.StatusInternalServerError {
		s.log.ErrorContext(r.Context(), "api: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="harvester"`)
	}
	if ae := (*apiError)(nil); errors.As(err, &ae) && ae.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ae.RetryAfter))
	}
	_ = writeJSON(w, status, body)
}

// fieldErrors collects what is wrong with each field of a request, by field name.
type fieldErrors map[string]string

// add records the first problem of a field; later ones (often consequences) are dropped.
func (f fieldErrors) add(field, format string, args ...any) {
	if _, ok := f[field]; !ok {
		f[field] = fmt.Sprintf(format, args...)
	}
}

// err is the 422 naming every bad field, or nil.
func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return &apiError{Status: http.StatusUnprocessableEntity, Message: "invalid input", Fields: f}
}
