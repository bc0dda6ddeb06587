package compare

import (
	"github.com/harvester-dev/harvester/harvest"
)

// GiveUp is COMPARE's give-up hook for a record (harvest.GiveUp): it settles as errored without a
// record id, since COMPARE is the stage that inserts the harvest_record row.
func GiveUp(fail harvest.FailJob) func(*harvest.Message, error) ([]*harvest.Message, error) {
	return harvest.GiveUp{Stage: harvest.StageCompare, NoRecordRow: true, FailJob: fail}.Settle
}

// GiveUpListing is the give-up hook of COMPARE's listing handler: a job whose deletes could not be
// worked out fails, and the aggregator reports it.
func GiveUpListing(fail harvest.FailJob) func(*harvest.Message, error) ([]*harvest.Message, error) {
	return harvest.GiveUp{Stage: harvest.StageListing, FailJob: fail}.Settle
}
