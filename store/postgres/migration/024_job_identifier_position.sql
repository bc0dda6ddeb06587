-- +goose Up
-- Kept in step with store/sqlite/migration/024_job_identifier_position.sql. Where a listing
-- finds a DuplicateIdentifier (store.Store JobIdentifierClaimBatch): each identifier's first
-- position in the job's listing, and the listing that claimed it (a random number per listing
-- attempt, so that the listing of a redelivered job claims its identifiers again instead of
-- taking them for repeats). Rows written by JobIdentifierAdd and JobIdentifierAddBatch keep
-- the defaults: no position, no listing.
ALTER TABLE harvest_job_identifier ADD COLUMN first_position integer NOT NULL DEFAULT -1;
ALTER TABLE harvest_job_identifier ADD COLUMN listing bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE harvest_job_identifier DROP COLUMN listing;
ALTER TABLE harvest_job_identifier DROP COLUMN first_position;
