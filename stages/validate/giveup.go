package validate

import (
	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
)

// GiveUp is VALIDATE's give-up hook (harvest.GiveUp): the record settles as errored.
func GiveUp(fail harvest.FailJob) func(*message.Message, error) ([]*message.Message, error) {
	return harvest.GiveUp{Stage: harvest.StageValidate, FailJob: fail}.Settle
}
