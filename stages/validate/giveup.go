package validate

import (
	"github.com/harvester-dev/harvester/harvest"
)

// GiveUp is VALIDATE's give-up hook (harvest.GiveUp): the record settles as errored.
func GiveUp(fail harvest.FailJob) func(*harvest.Message, error) ([]*harvest.Message, error) {
	return harvest.GiveUp{Stage: harvest.StageValidate, FailJob: fail}.Settle
}
