package harvest

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// The stage contract. A stage is a BatchHandler on one subject: it takes a batch of messages
// (records, for the per-record stages) and answers each with a Result: the messages that
// carry the record on to the next stage or settle it (SubjectSettled), or an error. Package
// pipeline wires each stage to its subject, and package router runs it (router/batch.go): it
// pulls the batch, publishes every Result's Out, confirmed once per batch, and acks each
// message whose Result has no error. An error is the message's alone: the runner retries that message by
// itself with backoff, and after its tries keeps it on SubjectFailedPrefix + the stage with
// the stage's give-up hook (GiveUp); the others of its batch settle as they are. Typed
// errors say more:
//
//   - a *PermanentError (Permanent) is given up at once, without retries;
//   - an *UnknownJobError (UnknownJob) is acked and counted: the job is not in the database;
//   - a *JobFailure (NewJobFailure) ends the job (jobs.FailStage) and acks the message.
//
// A stage keeps no state between batches that a redelivery could not rebuild: every message
// may come again (at-least-once), and each stage is idempotent.

// Result is a stage's answer to one message of a batch.
type Result struct {
	// Out are the messages to send on: the record to the next stage, or its Settled outcome.
	Out []*Message
	// Err fails this message alone (see the stage contract).
	Err error
}

// BatchHandler is a stage: it handles batch and returns one Result per message, in order.
// ctx ends when the process shuts down; each message's Context is ctx too.
type BatchHandler func(ctx context.Context, batch []*Message) []Result

// HandlerFunc handles one message: what to send on, or an error (see Result).
type HandlerFunc func(msg *Message) ([]*Message, error)

// Each is the BatchHandler that handles every message of a batch with h, all of them at once,
// each in a goroutine of its own: a stage whose work is per record (a transform, a
// validation) spreads its batch over the cores, and one whose writes are group-committed
// (compare's lookups, SYNC's upserts, the aggregator's outcomes) fills its groups from one
// batch. A batch of one runs in the caller's goroutine. The goroutines are kept between
// batches (up to eachIdle idle): a new goroutine's stack grows again for every deep call (a
// JSON Schema validation), which cost 8-9% of the harvester's CPU with one per message. A
// panic of h is the error of its message.
func Each(h HandlerFunc) BatchHandler {
	return func(ctx context.Context, batch []*Message) []Result {
		out := make([]Result, len(batch))
		ForEach(len(batch), func(i int) { out[i].Out, out[i].Err = handleOne(h, batch[i]) })
		return out
	}
}

// ForEach calls f(i) for every i in [0, n) at once, on goroutines kept between calls (as Each's
// are), and returns when every call has returned; n of 1 runs in the caller's goroutine. A stage
// whose BatchHandler writes the whole batch in one statement spreads its per-record work (a
// decode, a hash) with it. f must not panic.
func ForEach(n int, f func(i int)) {
	if n == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	wg.Add(n)
	for i := range n {
		pool.run(func() {
			defer wg.Done()
			f(i)
		})
	}
	wg.Wait()
}

// pool holds the goroutines of Each and ForEach.
var pool = &workers{tasks: make(chan func())}

// handleOne is h(m), a panic turned into m's error.
func handleOne(h HandlerFunc, m *Message) (out []*Message, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return h(m)
}

// eachIdle is how long a goroutine of Each waits for the next message before it ends.
const eachIdle = 30 * time.Second

// workers runs functions on goroutines that wait for the next one up to eachIdle: an idle one
// takes it, or a new one starts.
type workers struct{ tasks chan func() }

func (w *workers) run(f func()) {
	select {
	case w.tasks <- f:
	default:
		go w.work(f)
	}
}

func (w *workers) work(f func()) {
	idle := time.NewTimer(eachIdle)
	defer idle.Stop()
	for {
		f()
		idle.Reset(eachIdle)
		select {
		case f = <-w.tasks:
		case <-idle.C:
			return
		}
	}
}
