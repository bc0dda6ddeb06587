-- +goose Up
-- What a job's extract fetched: the document URL, the schema type it was read with, and the
-- response's cache validators. A later harvest job sends them back (conditional GET) only when
-- they belong to the source's last finished job and that job completed.
ALTER TABLE harvest_job ADD COLUMN fetch_url TEXT;
ALTER TABLE harvest_job ADD COLUMN fetch_schema_type TEXT;
ALTER TABLE harvest_job ADD COLUMN fetch_etag TEXT;
ALTER TABLE harvest_job ADD COLUMN fetch_last_modified TEXT;
-- The server answered 304 Not Modified to the job's conditional GET.
ALTER TABLE harvest_job ADD COLUMN fetch_not_modified BOOLEAN NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE harvest_job DROP COLUMN fetch_not_modified;
ALTER TABLE harvest_job DROP COLUMN fetch_last_modified;
ALTER TABLE harvest_job DROP COLUMN fetch_etag;
ALTER TABLE harvest_job DROP COLUMN fetch_schema_type;
ALTER TABLE harvest_job DROP COLUMN fetch_url;
