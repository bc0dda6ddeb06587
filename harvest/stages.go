package harvest

// Stage names, as `harvester worker --stages` spells them. A stage that gives up on a message
// keeps it on SubjectFailedPrefix + its name.
const (
	StageExtract   = "extract"
	StageCompare   = "compare"
	StageListing   = "listing"
	StageTransform = "transform"
	StageValidate  = "validate"
	StageSync      = "sync"
	StageReport    = "report" // the job aggregator, which consumes SubjectSettled
	StageTrigger   = "trigger"
)
