package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/compare"
)

// ceilingBatch is the batch size of the batched ceilings (JetStream fetch, Postgres COPY).
const ceilingBatch = 500

// recordBodies returns the templates as record bodies (each with an identifier), the payloads
// the ceilings work on: record i of a ceiling is bodies[i % len].
func recordBodies(templates []map[string]json.RawMessage) ([][]byte, error) {
	out := make([][]byte, len(templates))
	for i, t := range templates {
		rec := make(map[string]json.RawMessage, len(t))
		for k, v := range t {
			rec[k] = v
		}
		rec["identifier"] = mustJSON(benchIdentifier(i))
		b, err := json.Marshal(rec)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// parallel runs fn(i) for i in [0, n) on GOMAXPROCS goroutines and returns the wall time.
func parallel(n int, fn func(i int) error) (time.Duration, error) {
	start := time.Now()
	var next atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || firstErr.Load() != nil {
					return
				}
				if err := fn(i); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// ceilingHash is the canonical hashing (compare.SourceHash) of n records on every core.
func ceilingHash(bodies [][]byte, n int) (time.Duration, error) {
	return parallel(n, func(i int) error {
		_, err := compare.SourceHash(bodies[i%len(bodies)])
		return err
	})
}

// ceilingValidate is DCAT-US 1.1 federal schema validation of n records on every core.
func ceilingValidate(bodies [][]byte, n int) (time.Duration, error) {
	v, err := dcatus.NewValidator(string(harvest.SchemaDCATUS11Federal))
	if err != nil {
		return 0, err
	}
	return parallel(n, func(i int) error {
		problems, err := v.Validate(bodies[i%len(bodies)])
		if err == nil && len(problems) > 0 {
			err = fmt.Errorf("record %d is invalid: %v", i, problems[0])
		}
		return err
	})
}

// ceilingJetStream publishes n records to a work-queue stream of its own (file storage, as
// Harvester's) with PublishAsync, while a durable pull consumer takes them in batches and acks
// each; it returns the time until the last ack was flushed, and deletes the stream.
func ceilingJetStream(ctx context.Context, natsURL string, bodies [][]byte, n int) (time.Duration, error) {
	nc, err := nats.Connect(natsURL)
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4*ceilingBatch))
	if err != nil {
		return 0, err
	}
	const name, subject = "BENCH_CEILING", "bench.ceiling"
	_ = js.DeleteStream(ctx, name)
	stream, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{subject},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage})
	if err != nil {
		return 0, fmt.Errorf("ceiling stream: %w", err)
	}
	defer func() { _ = js.DeleteStream(context.WithoutCancel(ctx), name) }()
	cons, err := stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "bench", AckPolicy: jetstream.AckExplicitPolicy,
		MaxAckPending: 10 * ceilingBatch})
	if err != nil {
		return 0, err
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(ceilingBatch))
	if err != nil {
		return 0, err
	}
	defer it.Stop()
	start := time.Now()
	pubErr := make(chan error, 1)
	go func() {
		err := func() error {
			for i := range n {
				_, err := js.PublishAsync(subject, bodies[i%len(bodies)])
				for errors.Is(err, jetstream.ErrTooManyStalledMsgs) { // a loaded machine: wait for the PubAcks
					select {
					case <-js.PublishAsyncComplete():
					case <-time.After(time.Minute):
						return fmt.Errorf("PubAcks missing after a minute")
					}
					_, err = js.PublishAsync(subject, bodies[i%len(bodies)])
				}
				if err != nil {
					return err
				}
			}
			select {
			case <-js.PublishAsyncComplete():
				return nil
			case <-time.After(time.Minute):
				return fmt.Errorf("PubAcks missing after a minute")
			}
		}()
		pubErr <- err
		if err != nil {
			it.Stop() // the consumer would wait for the messages that were never stored
		}
	}()
	for got := 0; got < n; got++ {
		msg, err := it.Next()
		if err != nil {
			select {
			case perr := <-pubErr:
				if perr != nil {
					return 0, fmt.Errorf("ceiling publish: %w", perr)
				}
			default:
			}
			return 0, fmt.Errorf("ceiling consume after %d: %w", got, err)
		}
		if err := msg.Ack(); err != nil {
			return 0, err
		}
	}
	if err := nc.Flush(); err != nil {
		return 0, err
	}
	if err := <-pubErr; err != nil {
		return 0, fmt.Errorf("ceiling publish: %w", err)
	}
	return time.Since(start), nil
}

// dbCeiling is the Postgres ceiling with the other ways of doing the same work alongside.
type dbCeiling struct {
	copyUpsert, rowUpsert, batchLookup, rowLookup, rowSettle, batchSettle time.Duration
}

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
	var res dbCeiling
	const upsert = ` ON CONFLICT (source_id, identifier) DO UPDATE SET dcat = EXCLUDED.dcat,
		source_hash = EXCLUDED.source_hash, last_harvested_date = EXCLUDED.last_harvested_date`
	start := time.Now()
	for lo := 0; lo < n; lo += ceilingBatch {
		hi := min(n, lo+ceilingBatch)
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `CREATE TEMP TABLE bench_in (slug text, source_id int, identifier text,
				dcat jsonb, source_hash text, last_harvested_date timestamptz) ON COMMIT DROP`); err != nil {
				return err
			}
			now := time.Now()
			rows := pgx.CopyFromSlice(hi-lo, func(j int) ([]any, error) {
				i := lo + j
				id := benchIdentifier(i)
				return []any{id, 1, id, string(bodies[i%len(bodies)]), "h" + id, now}, nil
			})
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"bench_in"},
				[]string{"slug", "source_id", "identifier", "dcat", "source_hash", "last_harvested_date"}, rows); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO bench_dataset (slug, source_id, identifier, dcat, source_hash, last_harvested_date)
				SELECT slug, source_id, identifier, dcat, source_hash, last_harvested_date FROM bench_in`+upsert)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("COPY upsert: %w", err)
		}
	}
	res.copyUpsert = time.Since(start)

	start = time.Now()
	for i := range rowN {
		id := benchIdentifier(i)
		if _, err := conn.Exec(ctx, `INSERT INTO bench_dataset (slug, source_id, identifier, dcat, source_hash, last_harvested_date)
			VALUES ($1, 1, $1, $2, $3, now())`+upsert, id, string(bodies[i%len(bodies)]), "g"+id); err != nil {
			return nil, fmt.Errorf("row upsert: %w", err)
		}
	}
	res.rowUpsert = time.Since(start)

	start = time.Now()
	var hash string
	for i := range rowN {
		if err := conn.QueryRow(ctx, `SELECT source_hash FROM bench_dataset WHERE source_id = 1 AND identifier = $1`,
			benchIdentifier(i)).Scan(&hash); err != nil {
			return nil, fmt.Errorf("row lookup: %w", err)
		}
	}
	res.rowLookup = time.Since(start)

	start = time.Now()
	for lo := 0; lo < rowN; lo += ceilingBatch {
		ids := make([]string, 0, ceilingBatch)
		for i := lo; i < min(rowN, lo+ceilingBatch); i++ {
			ids = append(ids, benchIdentifier(i))
		}
		rows, err := conn.Query(ctx, `SELECT identifier, source_hash FROM bench_dataset WHERE source_id = 1 AND identifier = ANY($1)`, ids)
		if err != nil {
			return nil, fmt.Errorf("batch lookup: %w", err)
		}
		got := 0
		for rows.Next() {
			got++
		}
		rows.Close()
		if rows.Err() != nil || got != len(ids) {
			return nil, fmt.Errorf("batch lookup: %d of %d rows: %v", got, len(ids), rows.Err())
		}
	}
	res.batchLookup = time.Since(start)

	// The job aggregator's work: record each outcome once (a primary key on job and key) and
	// count it on the job's row.
	if _, err := conn.Exec(ctx, `CREATE TABLE bench_outcome (job int, key text, outcome text, PRIMARY KEY (job, key));
		CREATE TABLE bench_job (id int PRIMARY KEY, settled int NOT NULL, added int NOT NULL);
		INSERT INTO bench_job VALUES (1, 0, 0), (2, 0, 0)`); err != nil {
		return nil, err
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "DROP TABLE bench_outcome, bench_job") }()
	start = time.Now()
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
			return nil, fmt.Errorf("row settle: %w", err)
		}
	}
	res.rowSettle = time.Since(start)
	start = time.Now()
	for lo := 0; lo < rowN; lo += ceilingBatch {
		keys := make([]string, 0, ceilingBatch)
		for i := lo; i < min(rowN, lo+ceilingBatch); i++ {
			keys = append(keys, benchIdentifier(i))
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `INSERT INTO bench_outcome SELECT 2, k, 'added' FROM unnest($1::text[]) AS k
				ON CONFLICT DO NOTHING`, keys)
			if err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `UPDATE bench_job SET settled = settled + $1, added = added + $1 WHERE id = 2`, tag.RowsAffected())
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("batch settle: %w", err)
		}
	}
	res.batchSettle = time.Since(start)
	return &res, nil
}
