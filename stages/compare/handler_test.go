package compare

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/change"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/wmbridge"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// fixture is COMPARE on a real SQLite store and watermill's in-memory Pub/Sub, with the
// delete records it sends to SYNC collected.
type fixture struct {
	st  store.Store
	h   *Handler
	src *store.Source

	mu   sync.Mutex
	sync []harvest.Record
}

func newFixture(t *testing.T, maxDeleteShare float64) *fixture {
	t.Helper()
	return newFixtureOn(t, maxDeleteShare, func(st store.Store) store.Store { return st })
}

// newFixtureOn is newFixture with COMPARE running on wrap of the SQLite store.
func newFixtureOn(t *testing.T, maxDeleteShare float64, wrap func(store.Store) store.Store) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	require.NoError(t, err)
	t.Cleanup(db.Close)
	require.NoError(t, db.Migrate(ctx))
	st := wrap(db)
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: "https://example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	pubsub := gochannel.NewGoChannel(gochannel.Config{BlockPublishUntilSubscriberAck: true}, watermill.NopLogger{})
	t.Cleanup(func() { _ = pubsub.Close() })
	f := &fixture{st: st, h: New(st, wmbridge.Publisher{Publisher: pubsub}, maxDeleteShare), src: src}
	t.Cleanup(f.h.Close)
	ch, err := pubsub.Subscribe(ctx, harvest.SubjectSync)
	require.NoError(t, err)
	go func() {
		for m := range ch {
			var rec harvest.Record
			if harvest.Decode(wmbridge.ToHarvest(m), &rec) == nil {
				f.mu.Lock()
				f.sync = append(f.sync, rec)
				f.mu.Unlock()
			}
			m.Ack()
		}
	}()
	return f
}

func (f *fixture) job(t *testing.T, jobType harvest.JobType) *store.HarvestJob {
	t.Helper()
	job, err := f.st.JobInsert(context.Background(), &store.JobInsertParams{SourceID: f.src.ID, JobType: jobType})
	require.NoError(t, err)
	return job
}

// handle runs HandleRecord on one record of the job and returns its output.
func (f *fixture) handle(t *testing.T, job *store.HarvestJob, identifier, body string) []*harvest.Message {
	t.Helper()
	m, err := harvest.RecordMessage(harvest.SubjectCompare, &harvest.Record{JobID: job.ID, SourceID: f.src.ID,
		JobType: job.JobType, SchemaType: harvest.SchemaDCATUS11Federal, RecordID: harvest.RecordID(job.ID, identifier),
		Identifier: identifier, Body: harvest.RawText(body)})
	require.NoError(t, err)
	m.SetContext(context.Background())
	out, err := f.h.HandleRecord(m)
	require.NoError(t, err)
	return out
}

// compare runs HandleRecord on one record of the job and returns what it sent on.
func (f *fixture) compare(t *testing.T, job *store.HarvestJob, identifier, body string) (subject string, rec harvest.Record, s harvest.Settled) {
	t.Helper()
	out := f.handle(t, job, identifier, body)
	require.Len(t, out, 1)
	subject = out[0].Metadata.Get(harvest.MetaSubject)
	if subject == harvest.SubjectSettled {
		require.NoError(t, harvest.Decode(out[0], &s))
	} else {
		require.NoError(t, harvest.Decode(out[0], &rec))
	}
	return subject, rec, s
}

// synced does what SYNC does with a create or update: the dataset row is written.
func (f *fixture) synced(t *testing.T, rec harvest.Record) {
	t.Helper()
	_, err := f.st.DatasetUpsert(context.Background(), &store.DatasetUpsertParams{SourceID: f.src.ID,
		Identifier: rec.Identifier, Slug: rec.Identifier, DCAT: []byte(`{}`), RecordID: rec.RecordID})
	require.NoError(t, err)
}

// listing runs HandleListing for the job and returns its expected count.
func (f *fixture) listing(t *testing.T, job *store.HarvestJob, listed ...string) int {
	t.Helper()
	ctx := context.Background()
	for _, id := range listed {
		require.NoError(t, f.st.JobIdentifierAdd(ctx, &store.JobIdentifierAddParams{JobID: job.ID, Identifier: id}))
	}
	m, err := harvest.NewMessage(harvest.SubjectListing, &harvest.Listing{V: harvest.Version, JobID: job.ID,
		SourceID: f.src.ID, JobType: job.JobType, Listed: len(listed)})
	require.NoError(t, err)
	m.SetContext(ctx)
	out, err := f.h.HandleListing(m)
	require.NoError(t, err)
	require.Len(t, out, 1)
	var s harvest.Settled
	require.NoError(t, harvest.Decode(out[0], &s))
	require.Equal(t, harvest.SettledExpected, s.Kind)
	return s.Expected
}

func (f *fixture) deletesSent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.sync {
		out = append(out, r.Identifier)
	}
	return out
}

// A record listed again in the same job (a crash lost its settled message, a re-drive lists
// the source again) keeps the job's first decision: a dataset this job created is an addition
// and goes on to be settled again, not an update nor unchanged.
func TestRecordListedAgainKeepsDecision(t *testing.T) {
	f := newFixture(t, 0)
	job := f.job(t, harvest.JobHarvest)
	body := `{"identifier":"a","title":"A"}`

	subject, rec, _ := f.compare(t, job, "a", body)
	require.Equal(t, harvest.SubjectValidate, subject)
	require.Equal(t, harvest.ActionCreate, rec.Action)
	f.synced(t, rec) // the worker died after SYNC, before the aggregator counted it

	subject, rec, _ = f.compare(t, job, "a", body)
	require.Equal(t, harvest.SubjectValidate, subject)
	require.Equal(t, harvest.ActionCreate, rec.Action, "the dataset exists because this job created it")

	// Once the record's outcome was counted (status success), its redelivery has nothing left
	// to do: it is neither compared against itself (unchanged) nor sent through the stages.
	_, fresh, err := f.st.OutcomeSettle(context.Background(), &store.OutcomeSettleParams{JobID: job.ID,
		Key: harvest.IdentifierKey("a"), Identifier: "a", RecordID: rec.RecordID, Outcome: harvest.OutcomeAdded,
		Status: harvest.RecordSuccess})
	require.NoError(t, err)
	require.True(t, fresh)
	require.Empty(t, f.handle(t, job, "a", body), "a settled record is dropped")

	// The next job compares against it as usual.
	_, err = f.st.JobFail(context.Background(), &store.JobFailParams{JobID: job.ID, Type: "Test", Message: "end"})
	require.NoError(t, err)
	next := f.job(t, harvest.JobHarvest)
	subject, _, s := f.compare(t, next, "a", body)
	require.Equal(t, harvest.SubjectSettled, subject)
	require.Equal(t, harvest.OutcomeUnchanged, s.Outcome)
	subject, rec, _ = f.compare(t, next, "a", `{"identifier":"a","title":"A2"}`)
	require.Equal(t, harvest.SubjectValidate, subject)
	require.Equal(t, harvest.ActionUpdate, rec.Action)
}

// A listing handled twice (its first pass died after some deletes were synced, or the job was
// re-driven) expects the same count and sends every delete again, so the job finishes exactly.
func TestListingHandledAgainExpectsTheSame(t *testing.T) {
	f := newFixture(t, 1)
	old := f.job(t, harvest.JobHarvest)
	for _, id := range []string{"a", "b", "c"} {
		_, rec, _ := f.compare(t, old, id, `{"identifier":"`+id+`"}`)
		f.synced(t, rec)
	}
	_, err := f.st.JobFail(context.Background(), &store.JobFailParams{JobID: old.ID, Type: "Test", Message: "end"})
	require.NoError(t, err)

	job := f.job(t, harvest.JobHarvest)
	require.Equal(t, 3, f.listing(t, job, "a"), "one listed, two deletes")
	require.ElementsMatch(t, []string{"b", "c"}, f.deletesSent())
	deleted, err := f.st.DatasetDelete(context.Background(), &store.DatasetDeleteParams{SourceID: f.src.ID, Identifier: "b"})
	require.NoError(t, err)
	require.True(t, deleted)

	require.Equal(t, 3, f.listing(t, job, "a"), "b's delete is still this job's")
	require.ElementsMatch(t, []string{"b", "c", "b", "c"}, f.deletesSent(), "every delete is sent again")
}

// An invalid record that did not change is not validated again but settles as errored, carrying
// the error rows of the record that was found invalid; a valid unchanged record is unchanged,
// carrying its record's (warning) rows; a
// changed invalid record goes on to be validated; a validate job checks it again.
func TestUnchangedInvalidRecordIsErrored(t *testing.T) {
	f := newFixture(t, 0)
	ctx := context.Background()
	job := f.job(t, harvest.JobHarvest)
	bad, good := `{"identifier":"bad"}`, `{"identifier":"good","title":"G"}`
	_, invalid, _ := f.compare(t, job, "bad", bad)
	_, valid, _ := f.compare(t, job, "good", good)
	for _, r := range []struct {
		rec     harvest.Record
		outcome harvest.Outcome
		status  harvest.RecordStatus
	}{{invalid, harvest.OutcomeErrored, harvest.RecordErrorValidation}, {valid, harvest.OutcomeAdded, harvest.RecordSuccess}} {
		_, _, err := f.st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: harvest.IdentifierKey(r.rec.Identifier),
			Identifier: r.rec.Identifier, RecordID: r.rec.RecordID, Outcome: r.outcome, Status: r.status})
		require.NoError(t, err)
	}
	_, err := f.st.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "Test", Message: "end"})
	require.NoError(t, err)

	next := f.job(t, harvest.JobHarvest)
	subject, _, s := f.compare(t, next, "bad", bad)
	require.Equal(t, harvest.SubjectSettled, subject, "not validated again")
	require.Equal(t, harvest.Settled{V: harvest.Version, Kind: harvest.SettledOutcome, JobID: next.ID,
		Key: harvest.IdentifierKey("bad"), Identifier: "bad", Outcome: harvest.OutcomeErrored,
		CarriedFromRecordID: invalid.RecordID}, s)
	_, _, s = f.compare(t, next, "good", good)
	require.Equal(t, harvest.OutcomeUnchanged, s.Outcome)
	require.Equal(t, valid.RecordID, s.CarriedFromRecordID, "its warning rows, if any, are carried")
	subject, rec, _ := f.compare(t, next, "bad", `{"identifier":"bad","title":"fixed"}`)
	require.Equal(t, harvest.SubjectValidate, subject, "a changed record is validated")
	require.Equal(t, harvest.ActionCreate, rec.Action)
	_, err = f.st.JobFail(ctx, &store.JobFailParams{JobID: next.ID, Type: "Test", Message: "end"})
	require.NoError(t, err)

	val := f.job(t, harvest.JobValidate)
	subject, rec, _ = f.compare(t, val, "bad", bad)
	require.Equal(t, harvest.SubjectValidate, subject, "a validate job checks every record")
	require.Equal(t, harvest.ActionUnchanged, rec.Action)
}

// A record EXTRACT did not download (its WAF listing date is older than the last harvest) is
// settled by COMPARE as unchanged, whatever its stored record's status (as EXTRACT did before);
// nothing is inserted and nothing goes on to TRANSFORM.
func TestNotDownloadedRecordSettles(t *testing.T) {
	f := newFixture(t, 0)
	ctx := context.Background()
	job := f.job(t, harvest.JobHarvest)
	for _, id := range []string{"good", "gone"} {
		m, err := harvest.RecordMessage(harvest.SubjectCompare, &harvest.Record{JobID: job.ID, SourceID: f.src.ID,
			JobType: job.JobType, SchemaType: harvest.SchemaISO19115_2, RecordID: harvest.RecordID(job.ID, id),
			Identifier: id, NotDownloaded: true})
		require.NoError(t, err)
		m.SetContext(ctx)
		out, err := f.h.HandleRecord(m)
		require.NoError(t, err)
		require.Len(t, out, 1)
		require.Equal(t, harvest.SubjectSettled, out[0].Metadata.Get(harvest.MetaSubject))
		var s harvest.Settled
		require.NoError(t, harvest.Decode(out[0], &s))
		require.Equal(t, harvest.Settled{V: harvest.Version, Kind: harvest.SettledOutcome, JobID: job.ID,
			Key: harvest.IdentifierKey(id), Identifier: id, Outcome: harvest.OutcomeUnchanged}, s)
		_, err = f.st.RecordGet(ctx, harvest.RecordID(job.ID, id))
		require.ErrorIs(t, err, store.ErrNotFound, "nothing is inserted")
	}
}

// A Listing of a job whose document was 304 Not Modified settles every key the earlier job
// counted as errored as errored, carrying its rows, and every other live dataset unchanged (a
// live dataset whose record was invalid is errored, once), expects exactly those, and deletes
// nothing.
func TestNotModifiedListingSettles(t *testing.T) {
	f := newFixture(t, 0)
	ctx := context.Background()
	pubsub := gochannel.NewGoChannel(gochannel.Config{}, watermill.NopLogger{})
	t.Cleanup(func() { _ = pubsub.Close() })
	settledCh, err := pubsub.Subscribe(ctx, harvest.SubjectSettled)
	require.NoError(t, err)
	f.h.pub = wmbridge.Publisher{Publisher: pubsub}
	first := f.job(t, harvest.JobHarvest)
	for _, id := range []string{"a", "b"} {
		_, rec, _ := f.compare(t, first, id, `{"identifier":"`+id+`"}`)
		f.synced(t, rec)
	}
	_, _, err = f.st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: first.ID, Key: harvest.PositionKey(2),
		Outcome: harvest.OutcomeErrored, Errors: []harvest.RecordError{{Type: "MissingIdentifier", Message: "m",
			Severity: harvest.SeverityError}}})
	require.NoError(t, err)
	// b's dataset is live, and first found b's record invalid (an update that failed VALIDATE).
	_, _, err = f.st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: first.ID, Key: harvest.IdentifierKey("b"),
		Identifier: "b", Outcome: harvest.OutcomeErrored, Errors: []harvest.RecordError{{Type: "ValidationError",
			Message: "m", Severity: harvest.SeverityError}}})
	require.NoError(t, err)
	_, err = f.st.JobFail(ctx, &store.JobFailParams{JobID: first.ID, Type: "Test", Message: "end"})
	require.NoError(t, err)

	next := f.job(t, harvest.JobHarvest)
	m, err := harvest.NewMessage(harvest.SubjectListing, &harvest.Listing{V: harvest.Version, JobID: next.ID,
		SourceID: f.src.ID, JobType: next.JobType, NotModifiedSince: first.ID})
	require.NoError(t, err)
	m.SetContext(ctx)
	out, err := f.h.HandleListing(m)
	require.NoError(t, err)
	require.Len(t, out, 1)
	var expected harvest.Settled
	require.NoError(t, harvest.Decode(out[0], &expected))
	require.Equal(t, harvest.Settled{V: harvest.Version, Kind: harvest.SettledExpected, JobID: next.ID, Expected: 3}, expected)
	got := map[string]harvest.Settled{}
	for range 3 {
		msg := <-settledCh
		var s harvest.Settled
		require.NoError(t, harvest.Decode(wmbridge.ToHarvest(msg), &s))
		msg.Ack()
		got[s.Key] = s
	}
	require.Equal(t, harvest.OutcomeUnchanged, got[harvest.IdentifierKey("a")].Outcome)
	require.Equal(t, harvest.Settled{V: harvest.Version, Kind: harvest.SettledOutcome, JobID: next.ID,
		Key: harvest.IdentifierKey("b"), Outcome: harvest.OutcomeErrored, CarriedFromJobID: first.ID},
		got[harvest.IdentifierKey("b")], "errored, and counted once: not also unchanged")
	require.Equal(t, harvest.Settled{V: harvest.Version, Kind: harvest.SettledOutcome, JobID: next.ID,
		Key: harvest.PositionKey(2), Outcome: harvest.OutcomeErrored, CarriedFromJobID: first.ID}, got[harvest.PositionKey(2)])
	require.Empty(t, f.deletesSent(), "nothing is deleted")
}

// A changed record goes on to VALIDATE when it already is DCAT-US, and to TRANSFORM when it is
// not (ISO, DCAT-AP, a portal item whatever its schema type).
func TestOnward(t *testing.T) {
	for _, c := range []struct {
		rec  harvest.Record
		want string
	}{
		{harvest.Record{SchemaType: harvest.SchemaDCATUS11Federal}, harvest.SubjectValidate},
		{harvest.Record{SchemaType: harvest.SchemaDCATUS11NonFederal}, harvest.SubjectValidate},
		{harvest.Record{SchemaType: harvest.SchemaDCATUS30}, harvest.SubjectValidate},
		{harvest.Record{SchemaType: harvest.SchemaISO19115_2}, harvest.SubjectTransform},
		{harvest.Record{SchemaType: harvest.SchemaDCATAP}, harvest.SubjectTransform},
		{harvest.Record{SchemaType: harvest.SchemaDCATUS11NonFederal, SourceType: harvest.SourceCKAN}, harvest.SubjectTransform},
	} {
		require.Equal(t, c.want, change.Onward(&c.rec), "%s %s", c.rec.SourceType, c.rec.SchemaType)
	}
}
