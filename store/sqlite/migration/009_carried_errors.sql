-- +goose Up
-- Kept in step with store/postgres/migration/009_carried_errors.sql: a record that is unchanged
-- since the job that found it invalid is counted as errored again in each later job, which
-- carries that job's error rows (carried_from_job_id names it; NULL: found by the row's own job).
ALTER TABLE harvest_record_error ADD COLUMN carried_from_job_id TEXT;
CREATE INDEX harvest_record_error_record ON harvest_record_error (harvest_record_id) WHERE harvest_record_id IS NOT NULL;

-- +goose Down
DROP INDEX harvest_record_error_record;
ALTER TABLE harvest_record_error DROP COLUMN carried_from_job_id;
