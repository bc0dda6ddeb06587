package store

import "errors"

var (
	// ErrNotFound is returned when the row asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict is returned when a write breaks a uniqueness rule (a second unfinished job for
	// a source, a taken source URL, organization slug or dataset slug) or when a delete would
	// take rows that others still need (an organization with sources, a source with datasets or
	// an unfinished job).
	ErrConflict = errors.New("conflict")
)
