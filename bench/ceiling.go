package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/harvester-dev/harvester/change"
	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
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

// ceilingHash is the canonical hashing (change.SourceHash) of n records on every core.
func ceilingHash(bodies [][]byte, n int) (time.Duration, error) {
	return parallel(n, func(i int) error {
		_, err := change.SourceHash(bodies[i%len(bodies)])
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
		err := publishAll(js, subject, bodies, n)
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

// publishAll publishes n records to subject with PublishAsync and waits for their PubAcks.
func publishAll(js jetstream.JetStream, subject string, bodies [][]byte, n int) error {
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
}

// measureCeilings measures what each component alone can do with n records, and the CPU time
// each spends a record: the bench process's, and that of the nats-server at natsPID (0: none of
// its own, as with -embedded, whose server runs in the bench process) over the JetStream
// ceiling and of the Postgres backend over the upsert ceiling.
func measureCeilings(ctx context.Context, o options, templates []map[string]json.RawMessage, natsURL string, natsPID int,
	dbURL string) ([]result, error) {
	bodies, err := recordBodies(templates)
	if err != nil {
		return nil, err
	}
	n := o.records
	rate := func(name string, d time.Duration, cpu ceilingCPU) result {
		return result{Scenario: name, Records: n, RecordsPerSec: round(float64(n)/d.Seconds(), 1), WallS: round(d.Seconds(), 3),
			CPUMsPerRecord: cpu.perRecord(n)}
	}
	self := os.Getpid()
	var out []result
	span, natsSpan := startSpan(self), startSpan(natsPID)
	d, err := ceilingJetStream(ctx, natsURL, bodies, n)
	if err != nil {
		return nil, fmt.Errorf("ceiling_jetstream: %w", err)
	}
	out = append(out, rate("ceiling_jetstream", d, ceilingCPU{bench: span.seconds(), nats: natsSpan.seconds()}))
	if dbURL != "" {
		rowN := min(n, 10_000)
		db, err := ceilingPostgres(ctx, dbURL, bodies, n, rowN)
		if err != nil {
			return nil, fmt.Errorf("ceiling_postgres_upsert: %w", err)
		}
		r := rate("ceiling_postgres_upsert", db.copyUpsert, db.copyUpsertCPU)
		per := func(d time.Duration) map[string]any {
			return map[string]any{"records": rowN, "records_per_sec": round(float64(rowN)/d.Seconds(), 1),
				"us_per_record": round(float64(d.Microseconds())/float64(rowN), 1)}
		}
		r.Alternatives = map[string]map[string]any{"upsert_row_at_a_time": per(db.rowUpsert),
			"hash_lookup_row_at_a_time": per(db.rowLookup), "hash_lookup_batch_500": per(db.batchLookup),
			"settle_row_at_a_time": per(db.rowSettle), "settle_batch_500": per(db.batchSettle)}
		out = append(out, r)
	}
	span = startSpan(self)
	if d, err = ceilingValidate(bodies, n); err != nil {
		return nil, fmt.Errorf("ceiling_validate: %w", err)
	}
	out = append(out, rate("ceiling_validate", d, ceilingCPU{bench: span.seconds()}))
	span = startSpan(self)
	if d, err = ceilingHash(bodies, n); err != nil {
		return nil, fmt.Errorf("ceiling_hash: %w", err)
	}
	out = append(out, rate("ceiling_hash", d, ceilingCPU{bench: span.seconds()}))
	if p, ok := pipelineCeiling(out); ok {
		out = append(out, p)
	}
	return out, ctx.Err()
}

// pipelineHops is how many JetStream hops a changed record makes: extract → compare →
// transform → validate → sync → report.
const pipelineHops = 5

// pipelineCeiling composes the measured ceilings into the ceiling of the whole pipeline, as
// DESIGN.md does: each ceiling ran on the whole machine, so a record's share of the machine is
// the sum of its components' (five hops, one upsert, one validation, one hash), and the
// pipeline's ceiling is one over that sum. Its CPU a record is the same sum of the components'
// CPU a record, when each was measured. ok is false without the Postgres ceiling (-embedded).
func pipelineCeiling(ceilings []result) (result, bool) {
	per := map[string]float64{} // seconds of the machine per record
	cpu := map[string]*cpuPerRecord{}
	n := 0
	for _, c := range ceilings {
		per[c.Scenario] = 1 / c.RecordsPerSec
		cpu[c.Scenario] = c.CPUMsPerRecord
		n = c.Records
	}
	js, db, v, h := per["ceiling_jetstream"], per["ceiling_postgres_upsert"], per["ceiling_validate"], per["ceiling_hash"]
	if js == 0 || db == 0 || v == 0 || h == 0 {
		return result{}, false
	}
	sum := pipelineHops*js + db + v + h
	res := result{Scenario: "ceiling_pipeline", Records: n, RecordsPerSec: round(1/sum, 1), WallS: round(sum*float64(n), 3)}
	weights := map[string]float64{"ceiling_jetstream": pipelineHops, "ceiling_postgres_upsert": 1, "ceiling_validate": 1, "ceiling_hash": 1}
	total := &cpuPerRecord{}
	for name, w := range weights {
		c := cpu[name]
		if c == nil {
			return res, true
		}
		total.Harvester += w * c.Harvester
		total.NATS += w * c.NATS
		total.Postgres += w * c.Postgres
	}
	total.Harvester, total.NATS, total.Postgres = round(total.Harvester, 4), round(total.NATS, 4), round(total.Postgres, 4)
	total.Total = round(total.Harvester+total.NATS+total.Postgres, 4)
	res.CPUMsPerRecord = total
	return res, true
}
