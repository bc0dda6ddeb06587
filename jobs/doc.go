// Package jobs owns a harvest job's life outside the stages: it starts jobs (Control.Start for
// the one-shot CLI, Control.Enqueue for the API, the web UI, the scheduler and trigger
// messages, Control.StartQueued for the scheduler's cap), ends them (Control.Fail,
// Control.Cancel), re-drives orphans (Control.Redrive), replays the records a stage gave up on
// (Control.Replay, Control.Replayable) and says which job holds a source (Control.Busy).
// TriggerHandler takes FDK-style trigger messages.
//
// Invariants: a source has at most one unfinished job (the database refuses a second one:
// ErrJobInProgress). Every job ended in error outside the aggregator is ended here, and the
// aggregator is told (a harvest.SettledFailed message on harvest.SubjectSettled), so that its
// harvest report event, its email and harvester_jobs_finished_total{status="error"} follow
// whoever ended it: the API, the web UI, `harvester job cancel`, the scheduler or a stage.
// Outside this package only the aggregator (stages/report) and the stages' own outcome writes
// change a job's status (jobs/deps_test.go checks api, web, cmd/harvester, scheduler and
// pipeline).
package jobs
