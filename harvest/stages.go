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
	// StageCheck is CHECK, the link checker: it consumes SubjectCheck and settles nothing of a
	// job (DESIGN.md).
	StageCheck = "check"
	// StageCheckSettle is CHECK's second consumer, of the report events (SubjectReport): when
	// a job has finished it checks what is still due of its source's URLs and publishes the
	// source's QualityReport. `--stages check` runs both.
	StageCheckSettle = "check-settle"
)
