-- +goose Up
-- Kept in step with store/postgres/migration/002_service.sql.
ALTER TABLE harvest_source ADD COLUMN next_run_at TEXT;
UPDATE harvest_source SET next_run_at = strftime('%Y-%m-%dT%H:%M:%S.000000000Z', 'now') WHERE frequency <> 'manual';
CREATE INDEX harvest_source_next_run ON harvest_source (next_run_at) WHERE next_run_at IS NOT NULL;

DROP INDEX harvest_job_one_in_progress;
CREATE UNIQUE INDEX harvest_job_one_unfinished ON harvest_job (harvest_source_id)
    WHERE status IN ('new', 'in_progress');
CREATE INDEX harvest_job_status ON harvest_job (status, date_created);
CREATE INDEX harvest_job_heartbeat ON harvest_job (heartbeat_at) WHERE status = 'in_progress';

-- The scheduler's leader lease (Postgres uses a session advisory lock instead): one row,
-- held by holder until expires_at unless renewed.
CREATE TABLE scheduler_leader (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    holder     TEXT NOT NULL,
    expires_at TEXT NOT NULL
);

-- +goose Down
DROP TABLE scheduler_leader;
DROP INDEX harvest_job_heartbeat;
DROP INDEX harvest_job_status;
DROP INDEX harvest_job_one_unfinished;
CREATE UNIQUE INDEX harvest_job_one_in_progress ON harvest_job (harvest_source_id) WHERE status = 'in_progress';
DROP INDEX harvest_source_next_run;
ALTER TABLE harvest_source DROP COLUMN next_run_at;
