-- +goose Up
-- Kept in step with store/postgres/migration/018_cross_source_duplicate.sql: a source's
-- precedence, a dataset's duplicate keys (landingPage, the SHA-256 of its downloadURL set) and,
-- for a held dataset, the dataset it duplicates, by which key, found by which job and when.
-- ADD COLUMN with a REFERENCES clause is allowed here because the columns default to NULL.
ALTER TABLE harvest_source ADD COLUMN precedence INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dataset ADD COLUMN landing_page TEXT;
ALTER TABLE dataset ADD COLUMN download_urls_sha TEXT;
ALTER TABLE dataset ADD COLUMN duplicate_of TEXT REFERENCES dataset (id) ON DELETE SET NULL;
ALTER TABLE dataset ADD COLUMN duplicate_match TEXT
    CHECK (duplicate_match IN ('identifier', 'landingPage', 'downloadURL'));
ALTER TABLE dataset ADD COLUMN duplicate_key TEXT;
ALTER TABLE dataset ADD COLUMN duplicate_job_id TEXT REFERENCES harvest_job (id) ON DELETE SET NULL;
ALTER TABLE dataset ADD COLUMN duplicate_seen_at TEXT;
CREATE INDEX dataset_landing_page ON dataset (landing_page) WHERE landing_page IS NOT NULL;
CREATE INDEX dataset_download_urls_sha ON dataset (download_urls_sha) WHERE download_urls_sha IS NOT NULL;
CREATE INDEX dataset_duplicate_of ON dataset (duplicate_of) WHERE duplicate_of IS NOT NULL;
CREATE INDEX dataset_duplicate_job ON dataset (duplicate_job_id) WHERE duplicate_job_id IS NOT NULL;
-- A held dataset whose kept dataset was deleted (duplicate_of set NULL by the foreign key, its
-- other duplicate columns still set) until SYNC releases it (DatasetDuplicateRelease).
CREATE INDEX dataset_duplicate_orphan ON dataset (id) WHERE duplicate_of IS NULL AND duplicate_match IS NOT NULL;

-- +goose Down
DROP INDEX dataset_duplicate_orphan;
DROP INDEX dataset_duplicate_job;
DROP INDEX dataset_duplicate_of;
DROP INDEX dataset_download_urls_sha;
DROP INDEX dataset_landing_page;
ALTER TABLE dataset DROP COLUMN duplicate_seen_at;
ALTER TABLE dataset DROP COLUMN duplicate_job_id;
ALTER TABLE dataset DROP COLUMN duplicate_key;
ALTER TABLE dataset DROP COLUMN duplicate_match;
ALTER TABLE dataset DROP COLUMN duplicate_of;
ALTER TABLE dataset DROP COLUMN download_urls_sha;
ALTER TABLE dataset DROP COLUMN landing_page;
ALTER TABLE harvest_source DROP COLUMN precedence;
