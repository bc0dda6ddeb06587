package extracttest

import (
	"context"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// AsRunner does with a handler's error what the stage's runner in pipeline does
// (jobs.FailStage), so that these tests see a failed job without linking jobs: a
// harvest.JobFailure ends its job in error with its job error row and, when the job is now in
// error, tells the aggregator on pub; any other error is returned as it is.
func AsRunner(ctx context.Context, st store.Store, pub harvest.Publisher, err error) error {
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
