-- +goose Up
-- The scheduler's plan: when each source runs next (NULL for manual sources). Sources that
-- already have a schedule are due at once.
ALTER TABLE harvest_source ADD COLUMN next_run_at timestamptz;
UPDATE harvest_source SET next_run_at = now() WHERE frequency <> 'manual';
CREATE INDEX harvest_source_next_run ON harvest_source (next_run_at) WHERE next_run_at IS NOT NULL;

-- Rule: one unfinished job per source, queued (new) or running, enforced by the database.
DROP INDEX harvest_job_one_in_progress;
CREATE UNIQUE INDEX harvest_job_one_unfinished ON harvest_job (harvest_source_id)
    WHERE status IN ('new', 'in_progress');
-- JobStartQueued takes the oldest new jobs and counts the in_progress ones.
CREATE INDEX harvest_job_status ON harvest_job (status, date_created);
-- JobListOrphaned looks for running jobs with a stale heartbeat.
CREATE INDEX harvest_job_heartbeat ON harvest_job (heartbeat_at) WHERE status = 'in_progress';

-- +goose Down
DROP INDEX harvest_job_heartbeat;
DROP INDEX harvest_job_status;
DROP INDEX harvest_job_one_unfinished;
CREATE UNIQUE INDEX harvest_job_one_in_progress ON harvest_job (harvest_source_id) WHERE status = 'in_progress';
DROP INDEX harvest_source_next_run;
ALTER TABLE harvest_source DROP COLUMN next_run_at;
