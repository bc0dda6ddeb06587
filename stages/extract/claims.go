package extract

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// claims is the identifier bookkeeping of a listing whose repeats the store finds
// (Handler.NewClaimedRun): instead of a set of every identifier listed so far, which grows with
// the source (~42 bytes an identifier as 128-bit keyed hashes, and four times that in heap goal
// at the process's GOGC=300: 17 MiB of a 100,000-record first harvest's peak RSS), the listing
// keeps the last claimBatch entries, claims their identifiers in one statement
// (store.Store.JobIdentifierClaimBatch: the same rows delete detection reads) and only then
// publishes their records, or settles as DuplicateIdentifier each one whose identifier an
// earlier position of the listing has.
//
// One claim is in flight at a time, in listing order, so the first position of an identifier
// is its first in the listing. Each Run claims under a listing number of its own: a job listed
// again (a redelivery, a retry after a store error) claims its identifiers anew, and finds no
// repeat in what an earlier listing stored.
type claims struct {
	listing int64
	pending []claim // not handed to a claim yet
	// inFlight is the claim being stored, nil when none; it answers on its channel.
	inFlight chan claimed
}

// claim is one entry waiting for its identifier's claim: msg is its record's message (nil for
// an entry seen only, whose record settled otherwise), title names it in a duplicate's message.
type claim struct {
	identifier string
	pos        int
	title      string
	msg        *harvest.Message
}

// claimed is a claim's answer: the batch and the store's repeats (or its error).
type claimed struct {
	batch   []claim
	repeats map[string]int
	// decided is what decideClaimed made of each entry of batch (nil: nothing).
	decided []decided
	err     error
}

// claimBatch is how many entries a claimed listing claims, looks up and decides at once
// (decideClaimed): a statement of each kind per batch. Half the default job window
// (DefaultJobWindow), so that a listing paced at its window has a batch on its way while it
// decides the next: batches of 500 (the window) held the pipeline in step with each claim,
// 128 cost an unchanged re-harvest a tenth more CPU a record (docs/benchmarks.md).
const claimBatch = 250

func newClaims() *claims {
	return &claims{listing: rand.Int64N(1<<62) + 1} // never 0, the rows of JobIdentifierAdd
}

// NewClaimedRun is NewRun for a listing whose repeated identifiers the store finds (claims):
// a DCAT-US document's listing of any number of datasets keeps no memory per identifier. Its
// PublishRecord holds an entry's record until the identifier is claimed; FirstAt knows no earlier
// identifier.
func (h *Handler) NewClaimedRun(ctx context.Context, job *harvest.Job) *Run {
	return &Run{h: h, ctx: ctx, job: job, claims: newClaims()}
}

// PublishRecord sends the record message m of entry e to COMPARE, or, in a claimed run, once e's
// identifier is claimed and found to be no repeat; a repeat settles as DuplicateIdentifier
// naming the first position (harvest.CheckIdentifierWith's message). Elsewhere the caller has
// checked the identifier (FirstAt) and seen it (See).
func (l *Run) PublishRecord(e *catalog.Entry, m *harvest.Message) error {
	if l.claims == nil {
		return l.h.pub.Publish(harvest.SubjectCompare, m)
	}
	return l.addClaim(claim{identifier: e.Identifier, pos: e.Position, title: e.Title, msg: m})
}

// addClaim queues c, starts a claim once claimBatch are queued, and publishes the answer of
// the claim in flight if it came.
func (l *Run) addClaim(c claim) error {
	cl := l.claims
	cl.pending = append(cl.pending, c)
	if len(cl.pending) >= claimBatch {
		return l.startClaim()
	}
	if cl.inFlight == nil {
		return nil
	}
	select {
	case r := <-cl.inFlight:
		cl.inFlight = nil
		return l.settleClaim(r)
	default:
		return nil
	}
}

// startClaim waits for the claim in flight, then hands the queued entries to the next one.
func (l *Run) startClaim() error {
	cl := l.claims
	if err := l.waitClaim(); err != nil || len(cl.pending) == 0 {
		return err
	}
	batch := cl.pending
	cl.pending = make([]claim, 0, claimBatch)
	done := make(chan claimed, 1) // the claim never waits for a listing that gave up
	cl.inFlight = done
	ctx, jobID := l.ctx, l.job.JobID
	go func() {
		p := &store.JobIdentifierClaimBatchParams{JobID: jobID, Listing: cl.listing,
			Identifiers: make([]string, len(batch)), Positions: make([]int, len(batch))}
		for i, c := range batch {
			p.Identifiers[i], p.Positions[i] = c.identifier, c.pos
		}
		repeats, err := l.h.store.JobIdentifierClaimBatch(ctx, p)
		var decided []decided
		if err == nil {
			decided = l.decideClaimed(ctx, batch, repeats)
		}
		done <- claimed{batch: batch, repeats: repeats, decided: decided, err: err}
	}()
	return nil
}

// waitClaim waits for the claim in flight, if any, and publishes what it answers.
func (l *Run) waitClaim() error {
	cl := l.claims
	if cl.inFlight == nil {
		return nil
	}
	r := <-cl.inFlight
	cl.inFlight = nil
	return l.settleClaim(r)
}

// flushClaims claims every queued entry and publishes the answers: what Complete and pace wait
// for (pace counts the records listed, which must then be on their way).
func (l *Run) flushClaims() error {
	if l.claims == nil {
		return nil
	}
	if err := l.startClaim(); err != nil {
		return err
	}
	return l.waitClaim()
}

// settleClaim publishes a claimed batch's records (to COMPARE, or past it when decideClaimed
// stored their decision), or settles the repeats among them; the records decideClaimed settled
// unchanged are done.
func (l *Run) settleClaim(r claimed) error {
	if r.err != nil {
		return fmt.Errorf("record seen identifiers: %w", r.err)
	}
	for i, c := range r.batch {
		var d decided
		if r.decided != nil {
			d = r.decided[i]
		}
		if c.msg == nil || d.settled {
			continue
		}
		first, repeat := r.repeats[c.identifier]
		if !repeat || first == c.pos {
			subject, m := harvest.SubjectCompare, c.msg
			if d.next != nil {
				subject, m = d.next.Metadata.Get(harvest.MetaSubject), d.next
			}
			if err := l.h.pub.Publish(subject, m); err != nil {
				return err
			}
			continue
		}
		bad := harvest.CheckIdentifierWith(c.pos, c.identifier, c.title, nil, func(string) (int, bool) { return first, true })
		if err := l.SettleError(&catalog.Entry{Position: c.pos, Identifier: bad.Identifier}, bad.Type, bad.Message); err != nil {
			return err
		}
	}
	return nil
}

// FirstAt returns the position of the listing's first record with identifier, and whether
// there was one. A claimed run (NewClaimedRun) answers false: its repeats are found as they are
// claimed (PublishRecord).
func (l *Run) FirstAt(identifier string) (int, bool) {
	if l.claims != nil {
		return 0, false
	}
	pos, ok := l.seen[identifier]
	return pos, ok
}
