package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// TestRunHandsJobFailuresToJobs: a stage handler's harvest.JobFailure (wrapped, as a stage may
// return it) ends its job in error with the failure's type and message, and the runner's output
// is the one SettledFailed message that tells the aggregator; a job that had finished already
// (complete) keeps its status and no message goes out; a job that is gone is acked with nothing; any other
// error passes to the router (to be retried), on both stores.
func TestRunHandsJobFailuresToJobs(t *testing.T) {
	t.Parallel()
	for name, open := range backends() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testRun(t, open(t))
		})
	}
}

// Backends opens a fresh store of each backend: an SQLite file, a Postgres schema (exported
// to the package's external tests).
var Backends = backends

// backends opens a fresh store of each backend: an SQLite file, a Postgres schema.
func backends() map[string]func(t *testing.T) store.Store {
	return map[string]func(t *testing.T) store.Store{
		"sqlite": func(t *testing.T) store.Store {
			st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
			require.NoError(t, err)
			t.Cleanup(st.Close)
			require.NoError(t, st.Migrate(context.Background()))
			return st
		},
		"postgres": func(t *testing.T) store.Store { return dbtest.Store(t) },
	}
}

func testRun(t *testing.T, st store.Store) {
	ctx := context.Background()
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: "https://example.org/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	one := func(h harvest.HandlerFunc) func(*harvest.Message) ([]*harvest.Message, error) {
		return func(m *harvest.Message) ([]*harvest.Message, error) {
			res := run(st, harvest.Each(h))(m.Context(), []*harvest.Message{m})
			return res[0].Out, res[0].Err
		}
	}
	failing := func(jobID string) harvest.HandlerFunc {
		return func(*harvest.Message) ([]*harvest.Message, error) {
			return nil, fmt.Errorf("list: %w", harvest.NewJobFailure(jobID, harvest.TypeParseError, "not a catalog"))
		}
	}
	msg := harvest.NewRawMessage("m", nil)
	msg.SetContext(ctx)

	out, err := one(failing(job.ID))(msg)
	require.NoError(t, err, "a job failure is not retried")
	require.Len(t, out, 1)
	var s harvest.Settled
	require.NoError(t, harvest.Decode(out[0], &s))
	require.Equal(t, harvest.SettledFailed, s.Kind)
	require.Equal(t, job.ID, s.JobID)
	got, err := st.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.JobError, got.Status)
	errs, err := st.JobErrorList(ctx, job.ID)
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Equal(t, harvest.TypeParseError, errs[0].Type)
	require.Equal(t, "not a catalog", errs[0].Message)

	done, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobValidate})
	require.NoError(t, err)
	_, err = st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: done.ID, Expected: 0})
	require.NoError(t, err)
	_, finished, err := st.JobFinish(ctx, done.ID)
	require.NoError(t, err)
	require.True(t, finished)
	out, err = one(failing(done.ID))(msg)
	require.NoError(t, err)
	require.Empty(t, out, "a job that has completed is not reported again")
	errs, err = st.JobErrorList(ctx, done.ID)
	require.NoError(t, err)
	require.Empty(t, errs, "nor given a job error")

	out, err = one(failing("00000000-0000-0000-0000-000000000000"))(msg)
	require.NoError(t, err, "a job deleted with its source is acked")
	require.Empty(t, out)

	cause := errors.New("store down")
	_, err = one(func(*harvest.Message) ([]*harvest.Message, error) { return nil, cause })(msg)
	require.ErrorIs(t, err, cause, "any other error is the router's to retry")
}
