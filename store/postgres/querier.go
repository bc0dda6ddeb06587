package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// scan reads the store's row types: pgx scans timestamptz into time.Time and text[] into
// []string itself.
var scan = &sqlstore.Scanner{
	Time:     func(p *time.Time) any { return p },
	NullTime: func(p **time.Time) any { return p },
	Strings:  func(p *[]string) any { return p },
}

// pgxQuerier is what a pool, a connection and a transaction have in common.
type pgxQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// querier is a sqlstore.Querier over q whose errors pass through interpretError.
type querier struct{ q pgxQuerier }

func (q querier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return pgxRow{q.q.QueryRow(ctx, query, args...)}
}

// Query relies on pgx reporting an error of the query by the Rows it returns.
func (q querier) Query(ctx context.Context, query string, args ...any) sqlstore.Rows {
	r, _ := q.q.Query(ctx, query, args...)
	return pgxRows{r}
}

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), interpretError(err)
}

type pgxRow struct{ pgx.Row }

func (r pgxRow) Scan(dest ...any) error { return interpretError(r.Row.Scan(dest...)) }

type pgxRows struct{ pgx.Rows }

func (r pgxRows) Scan(dest ...any) error { return interpretError(r.Rows.Scan(dest...)) }
func (r pgxRows) Err() error             { return interpretError(r.Rows.Err()) }
