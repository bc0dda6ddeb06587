-- +goose Up
-- A record that is unchanged since the job that found it invalid is not validated again
-- (Data.gov's bug #5299), but each later job counts it as errored again and carries that job's
-- error rows: a copy in the later job, carried_from_job_id naming the job that found them
-- (NULL: found by the row's own job). Copies point at the record they were found on, so the
-- index finds a record's rows to copy.
ALTER TABLE harvest_record_error ADD COLUMN carried_from_job_id uuid;
CREATE INDEX harvest_record_error_record ON harvest_record_error (harvest_record_id) WHERE harvest_record_id IS NOT NULL;

-- +goose Down
DROP INDEX harvest_record_error_record;
ALTER TABLE harvest_record_error DROP COLUMN carried_from_job_id;
