package compare

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// batchStore is a real store that records the size of each batch COMPARE hands it and fails
// the next failLookups lookup batches and failInserts inserts (batches and single rows).
type batchStore struct {
	store.Store
	mu                       sync.Mutex
	lookupSizes, insertSizes []int
	failLookups, failInserts atomic.Int32
}

var errInjected = errors.New("injected batch failure")

func (s *batchStore) RecordCompareBatch(ctx context.Context, keys []store.RecordCompareKey) ([]*store.RecordCompare, error) {
	s.mu.Lock()
	s.lookupSizes = append(s.lookupSizes, len(keys))
	s.mu.Unlock()
	if s.failLookups.Add(-1) >= 0 {
		return nil, errInjected
	}
	return s.Store.RecordCompareBatch(ctx, keys)
}

func (s *batchStore) RecordInsertBatch(ctx context.Context, ps []*store.RecordInsertParams) error {
	s.mu.Lock()
	s.insertSizes = append(s.insertSizes, len(ps))
	s.mu.Unlock()
	if s.failInserts.Add(-1) >= 0 {
		return errInjected
	}
	return s.Store.RecordInsertBatch(ctx, ps)
}

func (s *batchStore) RecordInsert(ctx context.Context, p *store.RecordInsertParams) (*store.HarvestRecord, error) {
	if s.failInserts.Add(-1) >= 0 {
		return nil, errInjected
	}
	return s.Store.RecordInsert(ctx, p)
}

func (s *batchStore) largest() (lookups, inserts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.lookupSizes {
		lookups = max(lookups, n)
	}
	for _, n := range s.insertSizes {
		inserts = max(inserts, n)
	}
	return lookups, inserts
}

func newBatchFixture(t *testing.T) (*fixture, *batchStore) {
	t.Helper()
	var bs *batchStore
	f := newFixtureOn(t, 1, func(st store.Store) store.Store {
		bs = &batchStore{Store: st}
		return bs
	})
	return f, bs
}

// record is one record of a concurrent run and what COMPARE did with it.
type record struct {
	identifier, body string
	replay           bool
	job              *store.HarvestJob

	out []*harvest.Message
	err error
}

// handleAll runs HandleBatch on every record in one batch, as the router hands them.
func (f *fixture) handleAll(t *testing.T, recs []*record) {
	t.Helper()
	msgs := make([]*harvest.Message, len(recs))
	for i, r := range recs {
		m, err := harvest.RecordMessage(harvest.SubjectCompare, &harvest.Record{JobID: r.job.ID, SourceID: f.src.ID,
			JobType: r.job.JobType, SchemaType: harvest.SchemaDCATUS11Federal,
			RecordID: harvest.RecordID(r.job.ID, r.identifier), Identifier: r.identifier,
			Body: harvest.RawText(r.body), Replay: r.replay})
		require.NoError(t, err)
		m.SetContext(t.Context())
		msgs[i] = m
	}
	for i, res := range f.h.HandleBatch(t.Context(), msgs) {
		recs[i].out, recs[i].err = res.Out, res.Err
	}
}

// outcome is where a handled record went: its action on to VALIDATE (DCAT-US skips TRANSFORM), "unchanged" settled,
// "dropped" when nothing was sent.
func outcome(t *testing.T, out []*harvest.Message) string {
	t.Helper()
	if len(out) == 0 {
		return "dropped"
	}
	require.Len(t, out, 1)
	switch out[0].Metadata.Get(harvest.MetaSubject) {
	case harvest.SubjectValidate:
		var rec harvest.Record
		require.NoError(t, harvest.Decode(out[0], &rec))
		return string(rec.Action)
	case harvest.SubjectSettled:
		var s harvest.Settled
		require.NoError(t, harvest.Decode(out[0], &s))
		return string(s.Outcome)
	}
	return "unexpected subject " + out[0].Metadata.Get(harvest.MetaSubject)
}

func body(identifier, title string) string {
	return fmt.Sprintf(`{"identifier":%q,"title":%q}`, identifier, title)
}

// Many records of one job compared in one batch are looked up and inserted in one statement each, and
// each gets the decision it would get alone: unchanged, update or create, a record delivered
// twice at once is inserted once, a record already settled in the job is dropped.
func TestConcurrentRecordsOfOneJob(t *testing.T) {
	f, bs := newBatchFixture(t)
	ctx := context.Background()
	old := f.job(t, harvest.JobHarvest)
	for i := range 30 {
		id := fmt.Sprintf("k%02d", i)
		_, rec, _ := f.compare(t, old, id, body(id, "first"))
		f.synced(t, rec)
		_, _, err := f.st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: old.ID, Key: harvest.IdentifierKey(id),
			Identifier: id, RecordID: rec.RecordID, Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess})
		require.NoError(t, err)
	}
	_, err := f.st.JobFail(ctx, &store.JobFailParams{JobID: old.ID, Type: "Test", Message: "end"})
	require.NoError(t, err)

	job := f.job(t, harvest.JobHarvest)
	// k29 was compared, synced and counted in this job before a re-drive lists it again.
	_, rec, _ := f.compare(t, job, "k29", body("k29", "second"))
	_, fresh, err := f.st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: harvest.IdentifierKey("k29"),
		Identifier: "k29", RecordID: rec.RecordID, Outcome: harvest.OutcomeUpdated, Status: harvest.RecordSuccess})
	require.NoError(t, err)
	require.True(t, fresh)

	var recs []*record
	want := map[*record]string{}
	add := func(identifier, title, outcome string) {
		r := &record{identifier: identifier, body: body(identifier, title), job: job}
		recs = append(recs, r)
		want[r] = outcome
	}
	for i := range 30 {
		id := fmt.Sprintf("k%02d", i)
		switch {
		case i < 10:
			add(id, "first", string(harvest.OutcomeUnchanged))
		case i < 29:
			add(id, "second", string(harvest.ActionUpdate))
		default:
			add(id, "second", "dropped")
		}
	}
	for i := range 60 {
		add(fmt.Sprintf("n%02d", i), "new", string(harvest.ActionCreate))
	}
	add("n00", "new", string(harvest.ActionCreate)) // delivered twice, both in flight at once
	f.handleAll(t, recs)

	for _, r := range recs {
		require.NoError(t, r.err, r.identifier)
		require.Equal(t, want[r], outcome(t, r.out), r.identifier)
	}
	n, err := f.st.RecordCount(ctx, f.src.ID)
	require.NoError(t, err)
	require.Equal(t, 30+20+60, n, "old job's, the updates (k29's included) and the creates, n00 once")
	stored, err := f.st.RecordGet(ctx, harvest.RecordID(job.ID, "k15"))
	require.NoError(t, err)
	require.Equal(t, harvest.ActionUpdate, stored.Action)
	require.Equal(t, body("k15", "second"), stored.SourceRaw)

	lookups, inserts := bs.largest()
	require.Equal(t, len(recs), lookups, "one lookup for the batch")
	require.Equal(t, 19+60+1, inserts, "one insert for the batch's changed records")
}

// A batch that fails fails each of its records with an error the router retries, and the
// retries then go through: nothing is lost, nothing written twice.
func TestBatchFailureRetried(t *testing.T) {
	for _, c := range []struct {
		name string
		fail func(*batchStore)
	}{
		{"lookup", func(bs *batchStore) { bs.failLookups.Store(1) }},
		// The batches fail, and so does each record written alone after them.
		{"insert", func(bs *batchStore) { bs.failInserts.Store(1 << 20) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, bs := newBatchFixture(t)
			job := f.job(t, harvest.JobHarvest)
			var recs []*record
			for i := range 40 {
				id := fmt.Sprintf("r%02d", i)
				recs = append(recs, &record{identifier: id, body: body(id, "t"), job: job})
			}
			c.fail(bs)
			f.handleAll(t, recs)
			bs.failLookups.Store(0)
			bs.failInserts.Store(0)
			var failed []*record
			for _, r := range recs {
				if r.err != nil {
					require.ErrorIs(t, r.err, errInjected)
					require.False(t, harvest.IsPermanent(r.err), "the router retries it")
					require.Empty(t, r.out)
					failed = append(failed, r)
					continue
				}
				require.Equal(t, string(harvest.ActionCreate), outcome(t, r.out), r.identifier)
			}
			require.NotEmpty(t, failed, "the injected failure failed a batch")

			f.handleAll(t, failed) // the router's retry
			for _, r := range failed {
				require.NoError(t, r.err)
				require.Equal(t, string(harvest.ActionCreate), outcome(t, r.out), r.identifier)
			}
			n, err := f.st.RecordCount(context.Background(), f.src.ID)
			require.NoError(t, err)
			require.Equal(t, len(recs), n)
		})
	}
}

// One record that cannot be inserted (a replay of a job deleted since) fails alone: the other
// records of its insert batch are written.
func TestInsertBatchIsolatesABadRecord(t *testing.T) {
	f, _ := newBatchFixture(t)
	job := f.job(t, harvest.JobHarvest)
	recs := []*store.RecordInsertParams{
		{ID: harvest.RecordID(job.ID, "a"), JobID: job.ID, SourceID: f.src.ID, Identifier: "a", Action: harvest.ActionCreate},
		{ID: uuid.NewString(), JobID: uuid.NewString(), SourceID: f.src.ID, Identifier: "b", Action: harvest.ActionCreate},
		{ID: harvest.RecordID(job.ID, "c"), JobID: job.ID, SourceID: f.src.ID, Identifier: "c", Action: harvest.ActionCreate},
	}
	errs := f.h.insertAll(t.Context(), recs)
	require.Len(t, errs, len(recs))
	require.NoError(t, errs[0])
	require.ErrorIs(t, errs[1], store.ErrNotFound)
	require.NoError(t, errs[2])
	n, err := f.st.RecordCount(t.Context(), f.src.ID)
	require.NoError(t, err)
	require.Equal(t, 2, n)

	// Through the handler: a replayed record of a job that no longer exists errors, the
	// records compared beside it do not.
	run := []*record{{identifier: "gone", body: body("gone", "t"), replay: true,
		job: &store.HarvestJob{ID: uuid.NewString(), JobType: harvest.JobHarvest}}}
	for _, id := range []string{"d", "e", "f", "g"} {
		run = append(run, &record{identifier: id, body: body(id, "t"), job: job})
	}
	f.handleAll(t, run)
	require.ErrorIs(t, run[0].err, store.ErrNotFound)
	for _, r := range run[1:] {
		require.NoError(t, r.err)
		require.Equal(t, string(harvest.ActionCreate), outcome(t, r.out))
	}
}

// A replayed record of a job that has ended is compared again through the batches (a record
// of an ended job that is not a replay is dropped).
func TestReplayedRecord(t *testing.T) {
	f, _ := newBatchFixture(t)
	job := f.job(t, harvest.JobHarvest)
	_, err := f.st.JobFail(context.Background(), &store.JobFailParams{JobID: job.ID, Type: "Test", Message: "end"})
	require.NoError(t, err)
	recs := []*record{
		{identifier: "a", body: body("a", "t"), job: job, replay: true},
		{identifier: "b", body: body("b", "t"), job: job},
	}
	f.handleAll(t, recs)
	require.NoError(t, recs[0].err)
	require.Equal(t, string(harvest.ActionCreate), outcome(t, recs[0].out))
	require.NoError(t, recs[1].err)
	require.Equal(t, "dropped", outcome(t, recs[1].out))
	stored, err := f.st.RecordGet(context.Background(), harvest.RecordID(job.ID, "a"))
	require.NoError(t, err)
	require.Equal(t, harvest.RecordPending, stored.Status)
}
