// Package sqlite is the SQLite implementation of store.Store, for the embedded default: a
// single database file, pure Go (modernc.org/sqlite, no cgo). It runs in WAL mode with a busy
// timeout, so several stages can read while one writes. Its migrations live in migration/ and
// are kept in step with store/postgres.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

//go:embed migration/*.sql
var migrations embed.FS

// Store is a store.Store over one SQLite database file. The methods whose logic is the same on
// both backends are sqlstore.Store's, in the dialect below.
type Store struct {
	sqlstore.Store
	db *sql.DB
	q  querier // over db
}

var _ store.Store = (*Store)(nil)

// Open opens (creating it if needed) the SQLite database file at path. It does not migrate.
func Open(ctx context.Context, path string) (*Store, error) {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(30000)", "journal_mode(WAL)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	s := &Store{db: db, q: querier{db}}
	s.Store = sqlstore.New(s.q, scan, sqlstore.Dialect{
		Now:     "$now",
		NowArgs: func() []any { return []any{sql.Named("now", now())} },
		Time:    func(t time.Time) any { return formatTime(t) },
		Strings: func(l []string) any {
			if l == nil {
				l = []string{}
			}
			b, _ := json.Marshal(l) // a []string always marshals
			return string(b)
		},
		InTx: func(ctx context.Context, fn func(sqlstore.Querier) error) error {
			return interpretError(s.inTx(ctx, func(tx *sql.Tx) error { return fn(querier{tx}) }))
		},
		SQL: sqlstore.SQL{
			JobListFilter: `($1 IS NULL OR harvest_source_id = $1) AND ($2 IS NULL OR status = $2)
				AND ($3 IS NULL OR job_type = $3)`,
			DatasetStream: `SELECT ` + sqlstore.DatasetColumns + ` FROM dataset
				WHERE ($1 = '' OR harvest_source_id = $1) AND duplicate_of IS NULL ORDER BY id`,
			DatasetPageFilter: `($1 IS NULL OR s.organization_id = $1) AND ($2 IS NULL OR d.harvest_source_id = $2)
				AND ($3 IS NULL OR d.last_harvested_date >= $3) AND ($4 IS NULL OR d.id > $4)`,
			// Write transactions run one at a time (_txlock=immediate): a write's JobOpen check
			// and JobFail need no row lock.
		},
	}, s.OutcomeSettleBatch)
	return s, nil
}

// Close closes the database.
func (s *Store) Close() { _ = s.db.Close() }

// Migrate applies the embedded migrations with goose.
func (s *Store) Migrate(ctx context.Context) error {
	return sqlstore.Migrate(ctx, goose.DialectSQLite3, s.db, migrations)
}

// interpretError maps driver errors to the store's sentinels; everything else passes through.
func interpretError(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %s", store.ErrConflict, se.Error())
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY: // a reference to a row that does not exist
			return fmt.Errorf("%w: %s", store.ErrNotFound, se.Error())
		}
	}
	return err
}

// timeLayout is fixed-width, so that text order is time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func now() string { return formatTime(time.Now()) }

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) { return time.Parse(timeLayout, s) }

// inTx runs fn in a transaction (BEGIN IMMEDIATE: the write lock is taken up front, so a busy
// database waits instead of failing at the first write).
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
