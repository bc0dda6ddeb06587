package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// scan reads the store's row types: times are text in timeLayout, lists JSON text.
var scan = &sqlstore.Scanner{
	Time:     func(p *time.Time) any { return timeDest{p} },
	NullTime: func(p **time.Time) any { return nullTimeDest{p} },
	Strings:  func(p *[]string) any { return jsonDest{p} },
}

// timeDest scans a time column into *t.
type timeDest struct{ t *time.Time }

func (d timeDest) Scan(src any) error {
	s, err := text(src)
	if err != nil {
		return err
	}
	*d.t, err = parseTime(s)
	return err
}

// nullTimeDest scans a nullable time column into *t: nil for NULL.
type nullTimeDest struct{ t **time.Time }

func (d nullTimeDest) Scan(src any) error {
	if src == nil {
		*d.t = nil
		return nil
	}
	var t time.Time
	if err := (timeDest{&t}).Scan(src); err != nil {
		return err
	}
	*d.t = &t
	return nil
}

// jsonDest scans a column of JSON text into *v.
type jsonDest struct{ v any }

func (d jsonDest) Scan(src any) error {
	s, err := text(src)
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(s), d.v)
}

// text is a TEXT column's value.
func text(src driver.Value) (string, error) {
	switch v := src.(type) {
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	}
	return "", fmt.Errorf("want text, got %T", src)
}

// sqlQuerier is what *sql.DB and *sql.Tx have in common.
type sqlQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// querier is a sqlstore.Querier over q whose errors pass through interpretError.
type querier struct{ q sqlQuerier }

func (q querier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return sqlRow{q.q.QueryRowContext(ctx, query, args...)}
}

func (q querier) Query(ctx context.Context, query string, args ...any) sqlstore.Rows {
	r, err := q.q.QueryContext(ctx, query, args...)
	if err != nil {
		return failed{interpretError(err)}
	}
	return sqlRows{r}
}

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, interpretError(err)
	}
	return res.RowsAffected()
}

type sqlRow struct{ *sql.Row }

func (r sqlRow) Scan(dest ...any) error { return interpretError(r.Row.Scan(dest...)) }

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Scan(dest ...any) error { return interpretError(r.Rows.Scan(dest...)) }
func (r sqlRows) Err() error             { return interpretError(r.Rows.Err()) }
func (r sqlRows) Close()                 { _ = r.Rows.Close() }

// failed is the result set of a query that did not run.
type failed struct{ err error }

func (failed) Scan(...any) error { return sql.ErrNoRows }
func (failed) Next() bool        { return false }
func (f failed) Err() error      { return f.err }
func (failed) Close()            {}
