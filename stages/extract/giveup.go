package extract

import (
	"github.com/harvester-dev/harvester/harvest"
)

// GiveUp is EXTRACT's give-up hook (harvest.GiveUp): a job whose listing EXTRACT gave up on fails,
// and the aggregator reports it.
func GiveUp(fail harvest.FailJob) func(*harvest.Message, error) ([]*harvest.Message, error) {
	return harvest.GiveUp{Stage: harvest.StageExtract, FailJob: fail}.Settle
}
