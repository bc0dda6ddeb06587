-- +goose Up
-- A record imported from Data.gov H2.0 (harvester import-h2) keeps H2.0's source_hash here
-- (sansjson-sorted, double JSON-encoded: package h2hash). COMPARE finds such a record unchanged
-- when either hash matches, so the first harvest after the move rewrites nothing. NULL for
-- every record Harvester wrote itself.
ALTER TABLE harvest_record ADD COLUMN h2_source_hash TEXT;

-- +goose Down
ALTER TABLE harvest_record DROP COLUMN h2_source_hash;
