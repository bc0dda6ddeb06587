// Package extracttest runs EXTRACT in tests: one job of a source, on a real SQLite store and
// watermill's in-memory Pub/Sub (STYLE 6: stages are unit-tested on gochannel), with what it
// published collected. A family's tests pass their lister (extract.WithListers).
package extracttest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/wmbridge"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// Run is one EXTRACT run of a catalog written to a file, on a real SQLite store and
// watermill's in-memory Pub/Sub (STYLE 6: stages are unit-tested on gochannel).
type Run struct {
	St   store.Store
	Job  *store.HarvestJob
	Msgs map[string][]*harvest.Message // by subject
	Err  error                         // Handle's, as the stage's runner leaves it (AsRunner)
	// unseenAtListing is what DatasetListUnseen returned when the Listing was published: what
	// COMPARE would delete.
	UnseenAtListing []string
}

// RecordSubjects are the subjects a record leaves EXTRACT on: COMPARE's, or, when a claimed
// listing decided it itself (a data.json's harvest job), its next stage's past COMPARE.
var RecordSubjects = []string{harvest.SubjectCompare, harvest.SubjectValidate, harvest.SubjectTransform}

// RecordMessages are the record messages the run published, by RecordSubjects in turn.
func (r *Run) RecordMessages() []*harvest.Message {
	var msgs []*harvest.Message
	for _, subject := range RecordSubjects {
		msgs = append(msgs, r.Msgs[subject]...)
	}
	return msgs
}

// Records are the records the run published (RecordMessages), decoded.
func (r *Run) Records(t *testing.T) []harvest.Record {
	t.Helper()
	return DecodeAll[harvest.Record](t, r.RecordMessages())
}

func (r *Run) Settled(t *testing.T) []harvest.Settled {
	t.Helper()
	return DecodeAll[harvest.Settled](t, r.Msgs[harvest.SubjectSettled])
}

// onlyErrors requires each settled record to have one error row, of type typ, and returns
// their messages by identifier.
func (r *Run) OnlyErrors(t *testing.T, typ string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range r.Settled(t) {
		require.Len(t, s.Errors, 1)
		require.Equal(t, typ, s.Errors[0].Type)
		out[s.Identifier] = s.Errors[0].Message
	}
	return out
}

// DecodeAll decodes each message of msgs into a T.
func DecodeAll[T any](t *testing.T, msgs []*harvest.Message) []T {
	t.Helper()
	var out []T
	for _, m := range msgs {
		var v T
		require.NoError(t, harvest.Decode(m, &v))
		out = append(out, v)
	}
	return out
}

func (r *Run) Listed(t *testing.T) int {
	t.Helper()
	msgs := r.Msgs[harvest.SubjectListing]
	require.Len(t, msgs, 1, "one Listing")
	var l harvest.Listing
	require.NoError(t, harvest.Decode(msgs[0], &l))
	return l.Listed
}

// recordErrors returns the record errors settled for the job, by error type.
func (r *Run) RecordErrors(t *testing.T) map[string]harvest.Settled {
	t.Helper()
	out := map[string]harvest.Settled{}
	for _, s := range r.Settled(t) {
		require.Equal(t, harvest.SettledOutcome, s.Kind)
		require.Equal(t, harvest.OutcomeErrored, s.Outcome)
		require.Len(t, s.Errors, 1, "one error row per bad record")
		out[s.Errors[0].Type] = s
	}
	return out
}

// jobErrors returns the job's job-level errors.
func (r *Run) JobErrors(t *testing.T) []*store.JobError {
	t.Helper()
	errs, err := r.St.JobErrorList(context.Background(), r.Job.ID)
	require.NoError(t, err)
	return errs
}

// unseen returns the Identifiers of live datasets the run did not list: what a complete
// listing would delete.
func (r *Run) Unseen(t testing.TB) []string {
	t.Helper()
	var out []string
	require.NoError(t, r.St.DatasetListUnseen(context.Background(),
		&store.DatasetListUnseenParams{SourceID: r.Job.SourceID, JobID: r.Job.ID},
		func(id string) error { out = append(out, id); return nil }))
	return out
}

// RunExtract lists doc in a job of a source that has a live dataset for each of live, on SQLite.
func RunExtract(t *testing.T, doc []byte, live []string, opts ...extract.Option) *Run {
	t.Helper()
	return RunExtractOn(t, OpenSQLite(t), doc, live, opts...)
}

// OpenSQLite returns a migrated SQLite store in a temporary file.
func OpenSQLite(t testing.TB) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(context.Background()))
	return st
}

// RunExtractOn is RunExtract on the store st.
func RunExtractOn(t *testing.T, st store.Store, doc []byte, live []string, opts ...extract.Option) *Run {
	t.Helper()
	return RunExtractAs(t, st, "data.json", harvest.SourceDocument, harvest.SchemaDCATUS11Federal, doc, live, opts...)
}

// RunExtractAs is RunExtractOn of a source of type typ and schema, its document a file named file.
func RunExtractAs(t testing.TB, st store.Store, file string, typ harvest.SourceType, schema harvest.SchemaType,
	doc []byte, live []string, opts ...extract.Option) *Run {
	t.Helper()
	// No aggregator settles these records: unpaced, as the tests of the job window (pace_test.go)
	// are not.
	opts = append([]extract.Option{func(c *extract.Config) { c.JobWindow = -1 }}, opts...)
	path := filepath.Join(t.TempDir(), file)
	require.NoError(t, os.WriteFile(path, doc, 0o644))
	src, err := st.SourceEnsure(context.Background(), &store.SourceEnsureParams{Name: "s", URL: path, SourceType: typ, SchemaType: schema})
	require.NoError(t, err)
	return HandleJob(t, st, src.ID, live, harvest.Job{SourceType: typ, SchemaType: schema, URL: path}, fetch.Config{}, opts...)
}

// HandleJob runs EXTRACT on a new harvest job of the source srcID (msg gives the job message's
// source fields), after an earlier job of it made the datasets live live, on gochannel, and
// returns what it published.
func HandleJob(t testing.TB, st store.Store, srcID string, live []string, msg harvest.Job, fc fetch.Config,
	opts ...extract.Option) *Run {
	t.Helper()
	ctx := context.Background()
	if len(live) > 0 {
		old, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: srcID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		for _, id := range live {
			rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: harvest.RecordID(old.ID, id), JobID: old.ID,
				SourceID: srcID, Identifier: id, Action: harvest.ActionCreate, SourceRaw: "{}"})
			require.NoError(t, err)
			_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: srcID, Identifier: id, Slug: id,
				DCAT: []byte("{}"), RecordID: rec.ID})
			require.NoError(t, err)
		}
		_, err = st.JobFail(ctx, &store.JobFailParams{JobID: old.ID, Type: "Test", Message: "done"})
		require.NoError(t, err)
	}
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: srcID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	return handle(t, st, job, msg, fc, opts...)
}

// Redeliver runs EXTRACT again on the job of r, as for its message redelivered or retried
// (unpaced, as RunExtractAs): doc, when not nil, replaces the source's document first.
func Redeliver(t testing.TB, st store.Store, r *Run, doc []byte, opts ...extract.Option) *Run {
	t.Helper()
	src, err := st.SourceGet(context.Background(), r.Job.SourceID)
	require.NoError(t, err)
	if doc != nil {
		require.NoError(t, os.WriteFile(src.URL, doc, 0o644))
	}
	opts = append([]extract.Option{func(c *extract.Config) { c.JobWindow = -1 }}, opts...)
	return handle(t, st, r.Job, harvest.Job{SourceType: src.SourceType, SchemaType: src.SchemaType, URL: src.URL},
		fetch.Config{}, opts...)
}

// handle runs EXTRACT on job (msg gives the job message's source fields) on gochannel, and
// returns what it published.
func handle(t testing.TB, st store.Store, job *store.HarvestJob, msg harvest.Job, fc fetch.Config,
	opts ...extract.Option) *Run {
	t.Helper()
	ctx := context.Background()
	srcID := job.SourceID

	// Publish returns once our collector acked the message: when Handle returns, every message
	// it published has been collected.
	pubsub := gochannel.NewGoChannel(gochannel.Config{BlockPublishUntilSubscriberAck: true}, watermill.NopLogger{})
	t.Cleanup(func() { _ = pubsub.Close() })
	r := &Run{St: st, Job: job, Msgs: map[string][]*harvest.Message{}}
	var mu sync.Mutex
	for _, subject := range append([]string{harvest.SubjectSettled, harvest.SubjectListing}, RecordSubjects...) {
		ch, err := pubsub.Subscribe(ctx, subject)
		require.NoError(t, err)
		go func() {
			for msg := range ch {
				var unseen []string
				if subject == harvest.SubjectListing { // Handle waits for the ack
					unseen = r.Unseen(t)
				}
				mu.Lock()
				r.Msgs[subject] = append(r.Msgs[subject], wmbridge.ToHarvest(msg))
				r.UnseenAtListing = append(r.UnseenAtListing, unseen...)
				mu.Unlock()
				msg.Ack()
			}
		}()
	}
	msg.V, msg.JobID, msg.SourceID, msg.JobType = harvest.Version, job.ID, srcID, harvest.JobHarvest
	m, err := harvest.NewMessage(harvest.SubjectExtract, &msg)
	require.NoError(t, err)
	m.SetContext(ctx)
	pub := wmbridge.Publisher{Publisher: pubsub}
	r.Err = AsRunner(ctx, st, pub, extract.New(st, pub, fc, opts...).Handle(m))
	mu.Lock()
	defer mu.Unlock()
	return r
}

// Identifiers are the records' identifiers, in order.
func Identifiers(recs []harvest.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Identifier)
	}
	return out
}
