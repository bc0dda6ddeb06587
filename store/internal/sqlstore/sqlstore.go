// Package sqlstore holds the Go that store/postgres and store/sqlite share: the row scanners of
// every row type, the loop over a result set, and the methods whose logic is the same on both.
// Store holds the methods written once, with statements that read the same in both dialects
// ($n placeholders, now() for the current time); each backend embeds it and gives its Dialect
// (what now() is, how a transaction runs, the few statements that differ). The other methods
// stay in the backends, with their own SQL, passing it to the helpers here.
//
// A backend reaches its database through a Querier, which it implements over its driver (pgx
// for Postgres, database/sql for SQLite) and which maps driver errors to the store's sentinels,
// so that nothing here sees a driver error.
package sqlstore

import (
	"context"
	"errors"

	"github.com/harvester-dev/harvester/store"
)

// Row is one result row: *sql.Row, *sql.Rows, pgx.Row and pgx.Rows all are one.
type Row interface {
	Scan(dest ...any) error
}

// Rows is a result set. Its errors (of the query, of Scan and Err) are already mapped to the
// store's sentinels.
type Rows interface {
	Row
	Next() bool
	Err() error
	Close()
}

// Querier runs statements on a database or inside a transaction; it maps the driver's errors
// with the backend's interpretError.
type Querier interface {
	// QueryRow runs a query expected to return at most one row; no row is store.ErrNotFound
	// at Scan.
	QueryRow(ctx context.Context, query string, args ...any) Row
	// Query runs a query; an error running it is reported by the Rows' Err.
	Query(ctx context.Context, query string, args ...any) Rows
	// Exec runs a statement and returns the number of rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
}

// Each calls fn with each row of rows, scanned by scan, and closes rows. A scan error stops
// it and is returned; so is fn's error, as is.
func Each[T any](rows Rows, scan func(Row) (T, error), fn func(T) error) error {
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Collect is every row of rows, scanned by scan, in order (nil for none).
func Collect[T any](rows Rows, scan func(Row) (T, error)) ([]T, error) {
	var out []T
	err := Each(rows, scan, func(v T) error {
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// String scans a one-column text row.
func String(row Row) (string, error) {
	var s string
	err := row.Scan(&s)
	return s, err
}

// ExecOne runs a statement that changes one row: store.ErrNotFound when it changes none.
func ExecOne(ctx context.Context, q Querier, query string, args ...any) error {
	n, err := q.Exec(ctx, query, args...)
	if err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// Count is the single integer a count(*) query returns.
func Count(ctx context.Context, q Querier, query string, args ...any) (int, error) {
	var n int
	err := q.QueryRow(ctx, query, args...).Scan(&n)
	return n, err
}

// JobChanged is the result of a conditional job UPDATE ... RETURNING (job, err): the new row
// and true when it matched, else the job as it is (by get) and false, so that a caller can
// tell "changed" from "not in the state the change needs". get's error (store.ErrNotFound for
// a job that does not exist) is returned.
func JobChanged(job *store.HarvestJob, err error, get func() (*store.HarvestJob, error)) (*store.HarvestJob, bool, error) {
	if errors.Is(err, store.ErrNotFound) {
		job, err = get()
		return job, false, err
	}
	return job, err == nil, err
}
