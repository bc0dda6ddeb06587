package catalogsync

import (
	"github.com/harvester-dev/harvester/harvest"
)

// GiveUp is SYNC's give-up hook (harvest.GiveUp): the record settles as errored, so that the next
// run tries it again.
func GiveUp(fail harvest.FailJob) func(*harvest.Message, error) ([]*harvest.Message, error) {
	return harvest.GiveUp{Stage: harvest.StageSync, FailJob: fail}.Settle
}
