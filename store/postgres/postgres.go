// Package postgres is the PostgreSQL implementation of store.Store, on pgx/v5. Its migrations
// live in migration/ and are applied with goose.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

//go:embed migration/*.sql
var migrations embed.FS

// Store is a store.Store over a pgx connection pool. The methods whose logic is the same on
// both backends are sqlstore.Store's, in the dialect below.
type Store struct {
	sqlstore.Store
	pool *pgxpool.Pool
	q    querier // over pool

	mu      sync.Mutex
	leaders map[string]*pgxpool.Conn // per holder, the connection whose session holds the leader lock
}

// Advisory lock classes: the first key of pg_advisory_lock(int, int). The second key is
// hashtext(current_schema()), so that a database shared by several schemas (the tests make one
// per case) has a leader, a job cap and a migration per schema.
const (
	leaderLockClass      = 0x68760001
	startQueuedLockClass = 0x68760002
	migrateLockClass     = 0x68760003
)

var _ store.Store = (*Store)(nil)

// DefaultMaxConns is the connection pool's size when the URL does not set pool_max_conns:
// pgxpool's own default (4 on 2 cores) starves the stages' concurrent handlers, and the bench
// measured 16 three times faster (docs/benchmarks.md, Speed). Connections open only as they are needed.
const DefaultMaxConns = 16

// Open connects to the database at url (a libpq URL or DSN, e.g.
// postgres://user@host:5432/harvester; pool_max_conns and the other pgxpool settings may be
// given in it) and checks the connection. It does not migrate.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = max(cfg.MaxConns, DefaultMaxConns)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to postgres at %s: %w", cfg.ConnConfig.Host, err)
	}
	s := &Store{pool: pool, q: querier{pool}, leaders: map[string]*pgxpool.Conn{}}
	s.Store = sqlstore.New(s.q, scan, sqlstore.Dialect{
		Now:     "now()",
		NowArgs: func() []any { return nil },
		Time:    func(t time.Time) any { return t.UTC() },
		Strings: func(l []string) any {
			if l == nil {
				return []string{}
			}
			return l
		},
		InTx: func(ctx context.Context, fn func(sqlstore.Querier) error) error {
			return interpretError(pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return fn(querier{tx}) }))
		},
		SQL: sqlstore.SQL{
			JobListFilter: `($1::uuid IS NULL OR harvest_source_id = $1) AND ($2::text IS NULL OR status = $2)
				AND ($3::text IS NULL OR job_type = $3)`,
			DatasetStream: `SELECT ` + sqlstore.DatasetColumns + ` FROM dataset
				WHERE ($1 = '' OR harvest_source_id::text = $1) AND duplicate_of IS NULL ORDER BY id`,
			DatasetPageFilter: `($1::uuid IS NULL OR s.organization_id = $1::uuid) AND ($2::uuid IS NULL OR d.harvest_source_id = $2::uuid)
				AND ($3::timestamptz IS NULL OR d.last_harvested_date >= $3::timestamptz) AND ($4::uuid IS NULL OR d.id > $4::uuid)`,
			JobLock:     "FOR UPDATE",
			JobOpenLock: jobOpenLock,
			RowLock:     "FOR UPDATE",
			SkipLocked:  "FOR UPDATE SKIP LOCKED",
		},
	}, s.OutcomeSettleBatch)
	return s, nil
}

// MaxConns is the size of the connection pool.
func (s *Store) MaxConns() int32 { return s.pool.Config().MaxConns }

// Close gives up every leadership this Store holds and closes the pool.
func (s *Store) Close() {
	s.mu.Lock()
	for holder, conn := range s.leaders {
		delete(s.leaders, holder)
		unlockLeader(context.Background(), conn)
	}
	s.mu.Unlock()
	s.pool.Close()
}

// Migrate applies the embedded migrations with goose. Processes that start together (the
// stages of one deployment) take turns: the first migrates, the others then find nothing to do.
func (s *Store) Migrate(ctx context.Context) error {
	db := stdlib.OpenDBFromPool(s.pool)
	defer db.Close()
	return sqlstore.Migrate(ctx, goose.DialectPostgres, db, migrations, goose.WithSessionLocker(migrationLocker{}))
}

// migrationLocker holds the migration advisory lock of the schema for goose: unlike goose's
// own Postgres locker it waits in the server rather than polling every few seconds, and it is
// per schema, like the other locks.
type migrationLocker struct{}

func (migrationLocker) SessionLock(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1, hashtext(current_schema()))`, migrateLockClass)
	return err
}

func (migrationLocker) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1, hashtext(current_schema()))`, migrateLockClass)
	return err
}

// interpretError maps driver errors to the store's sentinels; everything else passes through.
func interpretError(err error) error {
	if errors.Is(err, pgx.ErrNoRows) || errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505": // unique_violation
			return fmt.Errorf("%w: %s", store.ErrConflict, pgErr.ConstraintName)
		case "22P02", "23503": // a malformed uuid; a foreign key to a row that does not exist
			return fmt.Errorf("%w: %s", store.ErrNotFound, pgErr.Message)
		case "22021": // a NUL or bytes that are not UTF-8 in an argument: no row can hold it, so
			// a lookup by it finds nothing, as on SQLite (the API refuses such text before it
			// gets here; storetest's Malformed/IDs pins the lookups)
			return fmt.Errorf("%w: %s", store.ErrNotFound, pgErr.Message)
		}
	}
	return err
}

var _ store.Pooled = (*Store)(nil)

// PoolStats implements store.Pooled with pgxpool's Stat.
func (s *Store) PoolStats() store.PoolStats {
	st := s.pool.Stat()
	return store.PoolStats{MaxConns: int(st.MaxConns()), TotalConns: int(st.TotalConns()), IdleConns: int(st.IdleConns()),
		AcquiredConns: int(st.AcquiredConns()), AcquireCount: st.AcquireCount(), EmptyAcquireCount: st.EmptyAcquireCount(),
		CanceledAcquireCount: st.CanceledAcquireCount(), AcquireDuration: st.AcquireDuration()}
}
