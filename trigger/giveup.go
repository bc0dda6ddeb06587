package trigger

import (
	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
)

// GiveUp is the trigger handler's give-up hook (harvest.GiveUp): a trigger message names no job
// of its own, so it only stays on the failed subject.
func GiveUp(fail harvest.FailJob) func(*message.Message, error) ([]*message.Message, error) {
	return harvest.GiveUp{Stage: harvest.StageTrigger, FailJob: fail}.Settle
}
