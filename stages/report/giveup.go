package report

import (
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
)

// GiveUp is the aggregator's give-up hook (harvest.GiveUp): an outcome it could not count fails its
// job, since the counts can no longer be exact; nothing is published.
func GiveUp(fail harvest.FailJob) func(*harvest.Message, error) ([]*harvest.Message, error) {
	return harvest.GiveUp{Stage: harvest.StageReport, JobOnly: true, FailJob: fail,
		Reason: func(cause error) string {
			return fmt.Sprintf("the job aggregator could not count a record: %v", cause)
		}}.Settle
}
