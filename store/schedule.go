package store

import (
	"time"

	"github.com/harvester-dev/harvester/harvest"
)

// PlanNextRun is the next run a source gets when its frequency is set to f (SourceInsert,
// SourceUpdate): none for manual; f after the start of the source's last job; now when the
// source has no job yet. Calendar arithmetic is done in UTC, so both backends agree.
func PlanNextRun(f harvest.Frequency, lastJobStart *time.Time, now time.Time) *time.Time {
	if f == harvest.FrequencyManual {
		return nil
	}
	next := now
	if lastJobStart != nil {
		next = f.After(lastJobStart.UTC())
	}
	return &next
}
