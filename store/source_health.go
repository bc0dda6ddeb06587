package store

import (
	"time"

	"github.com/harvester-dev/harvester/harvest"
)

// SourceHealth is a source's state as the sources list shows it, judged from its last run (its
// newest finished harvest or force_harvest job) and its last success (the newest of those jobs
// that ended complete with at least one record that did not error, or with none errored).
type SourceHealth string

// The health states, worst first (the order SortHealth lists them in).
const (
	// HealthFailing: the last run ended in error (a fetch that failed, a cancel), or it errored
	// records and no record came through (none added, updated or unchanged).
	HealthFailing SourceHealth = "failing"
	// HealthStale: a scheduled source whose last success finished before StaleBefore (two of
	// its schedule's periods ago). A manual source is never stale.
	HealthStale SourceHealth = "stale"
	// HealthErrors: the last run completed, with some records errored and some through.
	HealthErrors SourceHealth = "errors"
	// HealthNew: the source has no finished harvest job yet.
	HealthNew SourceHealth = "new"
	// HealthOK: the last run completed with no record errored.
	HealthOK SourceHealth = "ok"
)

// SourceHealths are the health states, worst first.
var SourceHealths = []SourceHealth{HealthFailing, HealthStale, HealthErrors, HealthNew, HealthOK}

// SourceSort orders SourceSummaryList.
type SourceSort string

// The orders of SourceSummaryList; each breaks ties by name then id.
const (
	SortName    SourceSort = "name"     // by name, A first (the default)
	SortHealth  SourceSort = "health"   // by health, worst first (SourceHealths' order)
	SortLastRun SourceSort = "last_run" // by the last run's finish, newest first; never run last
)

// SourceSorts are the orders of SourceSummaryList, the default first.
var SourceSorts = []SourceSort{SortName, SortHealth, SortLastRun}

// StaleBefore is the time before which a source of frequency f that last succeeded is stale at
// now: two of its periods earlier (2 days for daily, 14 for weekly, 28 for biweekly, 2 calendar
// months for monthly); the zero time for a manual source, which is never stale.
func StaleBefore(f harvest.Frequency, now time.Time) time.Time {
	switch f {
	case harvest.FrequencyDaily:
		return now.AddDate(0, 0, -2)
	case harvest.FrequencyWeekly:
		return now.AddDate(0, 0, -14)
	case harvest.FrequencyBiweekly:
		return now.AddDate(0, 0, -28)
	case harvest.FrequencyMonthly:
		return now.AddDate(0, -2, 0)
	}
	return time.Time{}
}
