package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/wmbridge"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
)

// TestRun: Run returns the job once it finished (here ended by the observer, as no stage
// runs); a wait past RunOptions.Timeout ends the job in error (CancelledJob, naming the waiter)
// and is a *StoppedError with the job's id; a source held by an unfinished job is a *BusyError
// naming that job (errors.Is ErrJobInProgress).
func TestRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newStore(t)
	pub := gochannel.NewGoChannel(gochannel.Config{}, watermill.NopLogger{})
	t.Cleanup(func() { _ = pub.Close() })
	ctl := jobs.Control{Store: st, Publisher: wmbridge.Publisher{Publisher: pub}}
	p := jobs.Params{URL: "https://run.example.gov/data.json", SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal, JobType: harvest.JobHarvest}

	ended := false
	job, err := ctl.Run(ctx, p, jobs.RunOptions{Poll: time.Millisecond, ReportGrace: time.Millisecond,
		Observe: func(j *store.HarvestJob) {
			if !ended {
				ended = true
				_, err := ctl.Fail(ctx, j.ID, harvest.TypeStageError, "ended by the test")
				require.NoError(t, err)
			}
		}})
	require.NoError(t, err)
	require.Equal(t, harvest.JobError, job.Status, "the job as it finished")

	_, err = ctl.Run(ctx, p, jobs.RunOptions{Timeout: 50 * time.Millisecond, Poll: time.Millisecond, Waiter: "the test"})
	var stopped *jobs.StoppedError
	require.True(t, errors.As(err, &stopped), "%v", err)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	cancelled, err := st.JobGet(ctx, stopped.JobID)
	require.NoError(t, err)
	require.Equal(t, harvest.JobError, cancelled.Status, "a wait that stops ends the job")
	rows, err := st.JobErrorList(ctx, stopped.JobID)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	require.Equal(t, harvest.TypeCancelledJob, rows[0].Type)
	require.Contains(t, rows[0].Message, "the test stopped waiting")

	held, err := ctl.Start(ctx, p)
	require.NoError(t, err)
	_, err = ctl.Run(ctx, p, jobs.RunOptions{})
	var busy *jobs.BusyError
	require.True(t, errors.As(err, &busy), "%v", err)
	require.ErrorIs(t, err, jobs.ErrJobInProgress)
	require.Equal(t, held.ID, busy.Job.ID)
	require.Equal(t, held.SourceID, busy.Source.ID)
}
