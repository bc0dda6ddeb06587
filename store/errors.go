package store

import "errors"

var (
	// ErrNotFound is returned when the row asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict is returned when a write breaks a uniqueness rule: a second in-progress job
	// for a source, or a dataset slug that another dataset has.
	ErrConflict = errors.New("conflict")
)
