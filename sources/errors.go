package sources

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/harvester-dev/harvester/store"
)

// Kind is what a caller got wrong.
type Kind int

// Kinds of Error.
const (
	// Invalid: one field or more is bad (Error.Fields names each).
	Invalid Kind = iota + 1
	// NotFound: the source or organization named does not exist.
	NotFound
	// Conflict: the write conflicts with what is stored (a URL or slug taken, live datasets, an
	// unfinished job, sources left in an organization).
	Conflict
)

// Error is a caller's mistake, with the message a user reads. It wraps the store's error
// (store.ErrNotFound, store.ErrConflict) when there is one.
type Error struct {
	Kind    Kind
	Message string
	// Fields is what is wrong with each bad field, by field name (the API's JSON member names;
	// "options.<key>" for a setting); set for Invalid only.
	Fields map[string]string
	err    error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.err }

// Status is the HTTP status that answers e: 422 Invalid, 404 NotFound, 409 Conflict.
func (e *Error) Status() int {
	switch e.Kind {
	case Invalid:
		return http.StatusUnprocessableEntity
	case NotFound:
		return http.StatusNotFound
	}
	return http.StatusConflict
}

// Fields collects what is wrong with each field of a source or organization, by field name.
type Fields map[string]string

// Add records the first problem of a field; later ones (often consequences) are dropped.
func (f Fields) Add(field, format string, args ...any) {
	if _, ok := f[field]; !ok {
		f[field] = fmt.Sprintf(format, args...)
	}
}

// Err is the Invalid error naming every bad field, or nil when there is none.
func (f Fields) Err() error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Kind: Invalid, Message: "invalid input", Fields: f}
}

// describe turns a store error into an Error with the message of its kind: notFound for
// store.ErrNotFound, conflict for store.ErrConflict (an empty message leaves that kind as the
// store said it). nil stays nil; any other error is returned as it is.
func describe(err error, notFound, conflict string) error {
	switch {
	case err == nil:
		return nil
	case notFound != "" && errors.Is(err, store.ErrNotFound):
		return &Error{Kind: NotFound, Message: notFound, err: err}
	case conflict != "" && errors.Is(err, store.ErrConflict):
		return &Error{Kind: Conflict, Message: conflict, err: err}
	}
	return err
}

// SourceNotFound is the message of a harvest source id that names none.
func SourceNotFound(id string) string { return fmt.Sprintf("harvest source %q not found", id) }

func urlTaken(u string) string { return fmt.Sprintf("a harvest source with url %q already exists", u) }

func slugTaken(slug string) string {
	return fmt.Sprintf("an organization with slug %q already exists", slug)
}

func orgNotFound(id string) string { return fmt.Sprintf("organization %q not found", id) }
