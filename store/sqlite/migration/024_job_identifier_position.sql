-- +goose Up
-- Kept in step with store/postgres/migration/024_job_identifier_position.sql: each listed
-- identifier's first position and the listing attempt that claimed it (store.Store
-- JobIdentifierClaimBatch).
ALTER TABLE harvest_job_identifier ADD COLUMN first_position INTEGER NOT NULL DEFAULT -1;
ALTER TABLE harvest_job_identifier ADD COLUMN listing INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE harvest_job_identifier DROP COLUMN listing;
ALTER TABLE harvest_job_identifier DROP COLUMN first_position;
