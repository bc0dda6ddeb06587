package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
)

// dbCeiling is the Postgres ceiling with the other ways of doing the same work alongside.
type dbCeiling struct {
	copyUpsert, rowUpsert, batchLookup, rowLookup, rowSettle, batchSettle time.Duration
	// copyUpsertCPU is the CPU the bench process and the connection's backend spent on the COPY upserts.
	copyUpsertCPU ceilingCPU
}

// ceilingUpsert is what the upserts into bench_dataset add to their INSERT.
const ceilingUpsert = ` ON CONFLICT (source_id, identifier) DO UPDATE SET dcat = EXCLUDED.dcat,
		source_hash = EXCLUDED.source_hash, last_harvested_date = EXCLUDED.last_harvested_date`

// ceilingPostgres upserts n dataset rows into a table shaped like `dataset` (slug unique,
// identifier unique per source, jsonb body) in the scratch database at dbURL, twice over: by
// COPY into a temporary table + INSERT … SELECT … ON CONFLICT DO UPDATE, ceilingBatch rows at a
// time (the ceiling), and one INSERT … ON CONFLICT per row (what SYNC does today, measured on
// rowN rows). It also times, on rowN rows: reading each row's hash back one query per
// identifier (COMPARE today) and ceilingBatch identifiers per query (= ANY($1)); and settling
// outcomes as the job aggregator does, one transaction per outcome (an INSERT on a primary key
// and an UPDATE of the job's counters: the aggregator today) and ceilingBatch per transaction.
func ceilingPostgres(ctx context.Context, dbURL string, bodies [][]byte, n, rowN int) (*dbCeiling, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, withoutPoolParams(u))
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE bench_dataset (id bigserial PRIMARY KEY, slug text NOT NULL UNIQUE,
		source_id int NOT NULL, identifier text NOT NULL, dcat jsonb NOT NULL, source_hash text NOT NULL,
		last_harvested_date timestamptz NOT NULL, UNIQUE (source_id, identifier))`); err != nil {
		return nil, err
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "DROP TABLE bench_dataset") }()
	// The job aggregator's work: record each outcome once (a primary key on job and key) and
	// count it on the job's row.
	if _, err := conn.Exec(ctx, `CREATE TABLE bench_outcome (job int, key text, outcome text, PRIMARY KEY (job, key));
		CREATE TABLE bench_job (id int PRIMARY KEY, settled int NOT NULL, added int NOT NULL);
		INSERT INTO bench_job VALUES (1, 0, 0), (2, 0, 0)`); err != nil {
		return nil, err
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "DROP TABLE bench_outcome, bench_job") }()
	var res dbCeiling
	var backend int
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		return nil, err
	}
	self, pg, start := startSpan(os.Getpid()), startSpan(backend), time.Now()
	if err := copyUpsert(ctx, conn, bodies, n); err != nil {
		return nil, fmt.Errorf("COPY upsert: %w", err)
	}
	res.copyUpsert = time.Since(start)
	res.copyUpsertCPU = ceilingCPU{bench: self.seconds(), postgres: pg.seconds()}
	for _, m := range []struct {
		what string
		into *time.Duration
		run  func() error
	}{
		{"row upsert", &res.rowUpsert, func() error { return rowUpsert(ctx, conn, bodies, rowN) }},
		{"row lookup", &res.rowLookup, func() error { return rowLookup(ctx, conn, rowN) }},
		{"batch lookup", &res.batchLookup, func() error { return batchLookup(ctx, conn, rowN) }},
		{"row settle", &res.rowSettle, func() error { return rowSettle(ctx, conn, rowN) }},
		{"batch settle", &res.batchSettle, func() error { return batchSettle(ctx, conn, rowN) }},
	} {
		start := time.Now()
		if err := m.run(); err != nil {
			return nil, fmt.Errorf("%s: %w", m.what, err)
		}
		*m.into = time.Since(start)
	}
	return &res, nil
}

// ceilingBatches calls fn with the identifiers of rows 0 to n-1, ceilingBatch at a time.
func ceilingBatches(n int, fn func(lo int, ids []string) error) error {
	for lo := 0; lo < n; lo += ceilingBatch {
		ids := make([]string, 0, ceilingBatch)
		for i := lo; i < min(n, lo+ceilingBatch); i++ {
			ids = append(ids, benchIdentifier(i))
		}
		if err := fn(lo, ids); err != nil {
			return err
		}
	}
	return nil
}

// copyUpsert upserts n rows by COPY into a temporary table and INSERT … SELECT, ceilingBatch
// rows a transaction.
func copyUpsert(ctx context.Context, conn *pgx.Conn, bodies [][]byte, n int) error {
	return ceilingBatches(n, func(lo int, ids []string) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `CREATE TEMP TABLE bench_in (slug text, source_id int, identifier text,
				dcat jsonb, source_hash text, last_harvested_date timestamptz) ON COMMIT DROP`); err != nil {
				return err
			}
			now := time.Now()
			rows := pgx.CopyFromSlice(len(ids), func(j int) ([]any, error) {
				id := ids[j]
				return []any{id, 1, id, string(bodies[(lo+j)%len(bodies)]), "h" + id, now}, nil
			})
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"bench_in"},
				[]string{"slug", "source_id", "identifier", "dcat", "source_hash", "last_harvested_date"}, rows); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO bench_dataset (slug, source_id, identifier, dcat, source_hash, last_harvested_date)
				SELECT slug, source_id, identifier, dcat, source_hash, last_harvested_date FROM bench_in`+ceilingUpsert)
			return err
		})
	})
}

// rowUpsert upserts rowN rows one INSERT … ON CONFLICT each.
func rowUpsert(ctx context.Context, conn *pgx.Conn, bodies [][]byte, rowN int) error {
	for i := range rowN {
		id := benchIdentifier(i)
		if _, err := conn.Exec(ctx, `INSERT INTO bench_dataset (slug, source_id, identifier, dcat, source_hash, last_harvested_date)
			VALUES ($1, 1, $1, $2, $3, now())`+ceilingUpsert, id, string(bodies[i%len(bodies)]), "g"+id); err != nil {
			return err
		}
	}
	return nil
}

// rowLookup reads rowN rows' hashes one query each.
func rowLookup(ctx context.Context, conn *pgx.Conn, rowN int) error {
	var hash string
	for i := range rowN {
		if err := conn.QueryRow(ctx, `SELECT source_hash FROM bench_dataset WHERE source_id = 1 AND identifier = $1`,
			benchIdentifier(i)).Scan(&hash); err != nil {
			return err
		}
	}
	return nil
}

// batchLookup reads rowN rows' hashes ceilingBatch identifiers a query.
func batchLookup(ctx context.Context, conn *pgx.Conn, rowN int) error {
	return ceilingBatches(rowN, func(_ int, ids []string) error {
		rows, err := conn.Query(ctx, `SELECT identifier, source_hash FROM bench_dataset WHERE source_id = 1 AND identifier = ANY($1)`, ids)
		if err != nil {
			return err
		}
		got := 0
		for rows.Next() {
			got++
		}
		rows.Close()
		if rows.Err() != nil || got != len(ids) {
			return fmt.Errorf("%d of %d rows: %v", got, len(ids), rows.Err())
		}
		return nil
	})
}

// rowSettle settles rowN outcomes of job 1 one transaction each.
func rowSettle(ctx context.Context, conn *pgx.Conn, rowN int) error {
	for i := range rowN {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `INSERT INTO bench_outcome VALUES (1, $1, 'added') ON CONFLICT DO NOTHING`, benchIdentifier(i))
			if err != nil || tag.RowsAffected() == 0 {
				return err
			}
			_, err = tx.Exec(ctx, `UPDATE bench_job SET settled = settled + 1, added = added + 1 WHERE id = 1`)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// batchSettle settles rowN outcomes of job 2 ceilingBatch a transaction.
func batchSettle(ctx context.Context, conn *pgx.Conn, rowN int) error {
	return ceilingBatches(rowN, func(_ int, keys []string) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `INSERT INTO bench_outcome SELECT 2, k, 'added' FROM unnest($1::text[]) AS k
				ON CONFLICT DO NOTHING`, keys)
			if err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `UPDATE bench_job SET settled = settled + $1, added = added + $1 WHERE id = 2`, tag.RowsAffected())
			return err
		})
	})
}
