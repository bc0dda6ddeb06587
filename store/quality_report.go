package store

import (
	"encoding/json"
	"time"
)

// QualityReport is a quality_report row: the quality event of one harvest job
// (harvest.QualityReport, published by CHECK once the checks of the job's URLs settled), kept as
// the JSON that was published. It does not go with the job's history when retention prunes the
// job; it goes with its source.
type QualityReport struct {
	JobID     string
	SourceID  string
	CreatedAt time.Time       // when the checks settled, UTC
	Report    json.RawMessage // the event as published
}
