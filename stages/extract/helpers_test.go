package extract

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// extractRun is one EXTRACT run of a catalog written to a file, on a real SQLite store and
// watermill's in-memory Pub/Sub (STYLE 6: stages are unit-tested on gochannel).
type extractRun struct {
	st   store.Store
	job  *store.HarvestJob
	msgs map[string][]*message.Message // by subject
	err  error                         // Handle's
	// unseenAtListing is what DatasetListUnseen returned when the Listing was published: what
	// COMPARE would delete.
	unseenAtListing []string
}

func (r *extractRun) records(t *testing.T) []harvest.Record {
	t.Helper()
	return decodeAll[harvest.Record](t, r.msgs[harvest.SubjectCompare])
}

func (r *extractRun) settled(t *testing.T) []harvest.Settled {
	t.Helper()
	return decodeAll[harvest.Settled](t, r.msgs[harvest.SubjectSettled])
}

// onlyErrors requires each settled record to have one error row, of type typ, and returns
// their messages by identifier.
func (r *extractRun) onlyErrors(t *testing.T, typ string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range r.settled(t) {
		require.Len(t, s.Errors, 1)
		require.Equal(t, typ, s.Errors[0].Type)
		out[s.Identifier] = s.Errors[0].Message
	}
	return out
}

// decodeAll decodes each message of msgs into a T.
func decodeAll[T any](t *testing.T, msgs []*message.Message) []T {
	t.Helper()
	var out []T
	for _, m := range msgs {
		var v T
		require.NoError(t, harvest.Decode(m, &v))
		out = append(out, v)
	}
	return out
}

func (r *extractRun) listed(t *testing.T) int {
	t.Helper()
	msgs := r.msgs[harvest.SubjectListing]
	require.Len(t, msgs, 1, "one Listing")
	var l harvest.Listing
	require.NoError(t, harvest.Decode(msgs[0], &l))
	return l.Listed
}

// recordErrors returns the record errors settled for the job, by error type.
func (r *extractRun) recordErrors(t *testing.T) map[string]harvest.Settled {
	t.Helper()
	out := map[string]harvest.Settled{}
	for _, s := range r.settled(t) {
		require.Equal(t, harvest.SettledOutcome, s.Kind)
		require.Equal(t, harvest.OutcomeErrored, s.Outcome)
		require.Len(t, s.Errors, 1, "one error row per bad record")
		out[s.Errors[0].Type] = s
	}
	return out
}

// jobErrors returns the job's job-level errors.
func (r *extractRun) jobErrors(t *testing.T) []*store.JobError {
	t.Helper()
	errs, err := r.st.JobErrorList(context.Background(), r.job.ID)
	require.NoError(t, err)
	return errs
}

// unseen returns the identifiers of live datasets the run did not list: what a complete
// listing would delete.
func (r *extractRun) unseen(t testing.TB) []string {
	t.Helper()
	var out []string
	require.NoError(t, r.st.DatasetListUnseen(context.Background(),
		&store.DatasetListUnseenParams{SourceID: r.job.SourceID, JobID: r.job.ID},
		func(id string) error { out = append(out, id); return nil }))
	return out
}

// runExtract lists doc in a job of a source that has a live dataset for each of live, on SQLite.
func runExtract(t *testing.T, doc []byte, live []string, opts ...Option) *extractRun {
	t.Helper()
	return runExtractOn(t, openSQLite(t), doc, live, opts...)
}

// openSQLite returns a migrated SQLite store in a temporary file.
func openSQLite(t testing.TB) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(context.Background()))
	return st
}

// runExtractOn is runExtract on the store st.
func runExtractOn(t *testing.T, st store.Store, doc []byte, live []string, opts ...Option) *extractRun {
	t.Helper()
	return runExtractAs(t, st, "data.json", harvest.SourceDocument, harvest.SchemaDCATUS11Federal, doc, live, opts...)
}

// runExtractAs is runExtractOn of a source of type typ and schema, its document a file named file.
func runExtractAs(t testing.TB, st store.Store, file string, typ harvest.SourceType, schema harvest.SchemaType,
	doc []byte, live []string, opts ...Option) *extractRun {
	t.Helper()
	// No aggregator settles these records: unpaced, as the tests of the job window (pace_test.go)
	// are not.
	opts = append([]Option{func(c *Config) { c.JobWindow = -1 }}, opts...)
	path := filepath.Join(t.TempDir(), file)
	require.NoError(t, os.WriteFile(path, doc, 0o644))
	src, err := st.SourceEnsure(context.Background(), &store.SourceEnsureParams{Name: "s", URL: path, SourceType: typ, SchemaType: schema})
	require.NoError(t, err)
	return handleJob(t, st, src.ID, live, harvest.Job{SourceType: typ, SchemaType: schema, URL: path}, fetch.Config{}, opts...)
}

// handleJob runs EXTRACT on a new harvest job of the source srcID (msg gives the job message's
// source fields), after an earlier job of it made the datasets live live, on gochannel, and
// returns what it published.
func handleJob(t testing.TB, st store.Store, srcID string, live []string, msg harvest.Job, fc fetch.Config,
	opts ...Option) *extractRun {
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

	// Publish returns once our collector acked the message: when Handle returns, every message
	// it published has been collected.
	pubsub := gochannel.NewGoChannel(gochannel.Config{BlockPublishUntilSubscriberAck: true}, watermill.NopLogger{})
	t.Cleanup(func() { _ = pubsub.Close() })
	r := &extractRun{st: st, job: job, msgs: map[string][]*message.Message{}}
	var mu sync.Mutex
	for _, subject := range []string{harvest.SubjectCompare, harvest.SubjectSettled, harvest.SubjectListing} {
		ch, err := pubsub.Subscribe(ctx, subject)
		require.NoError(t, err)
		go func() {
			for msg := range ch {
				var unseen []string
				if subject == harvest.SubjectListing { // Handle waits for the ack
					unseen = r.unseen(t)
				}
				mu.Lock()
				r.msgs[subject] = append(r.msgs[subject], msg)
				r.unseenAtListing = append(r.unseenAtListing, unseen...)
				mu.Unlock()
				msg.Ack()
			}
		}()
	}
	msg.V, msg.JobID, msg.SourceID, msg.JobType = harvest.Version, job.ID, srcID, harvest.JobHarvest
	m, err := harvest.NewMessage(harvest.SubjectExtract, &msg)
	require.NoError(t, err)
	m.SetContext(ctx)
	r.err = asRunner(ctx, st, pubsub, New(st, pubsub, fc, opts...).Handle(m))
	mu.Lock()
	defer mu.Unlock()
	return r
}

func identifiers(recs []harvest.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Identifier)
	}
	return out
}

// asRunner does with a handler's error what the stage's runner in pipeline does
// (jobs.FailStage), so that these tests see a failed job without linking jobs: a
// harvest.JobFailure ends its job in error with its job error row and, when the job is now in
// error, tells the aggregator on pub; any other error is returned as it is.
func asRunner(ctx context.Context, st store.Store, pub message.Publisher, err error) error {
	f := harvest.AsJobFailure(err)
	if f == nil {
		return err
	}
	job, err := st.JobFail(ctx, &store.JobFailParams{JobID: f.JobID, Type: f.Type, Message: f.Message})
	if err != nil || job.Status != harvest.JobError {
		return err
	}
	m, err := harvest.SettledMessage(harvest.SettleFailed(f.JobID))
	if err != nil {
		return err
	}
	return pub.Publish(harvest.SubjectSettled, m)
}
