-- +goose Up
-- Replay (harvester replay): a key whose settled outcome is errored can be re-opened, and then
-- accepts one new outcome even on a finished job. replay_at is when it was re-opened (NULL: not
-- re-opened); validated remembers whether the settled outcome counted as validated, so the new
-- one moves that count exactly (NULL for outcomes settled before this migration).
ALTER TABLE harvest_job_outcome ADD COLUMN validated boolean, ADD COLUMN replay_at timestamptz;
-- The aggregator key each error row was settled under, so a replayed key's new outcome replaces
-- the rows of its old one (NULL for rows written before this migration).
ALTER TABLE harvest_record_error ADD COLUMN key text;
CREATE INDEX harvest_record_error_key ON harvest_record_error (harvest_job_id, key) WHERE key IS NOT NULL;

-- +goose Down
DROP INDEX harvest_record_error_key;
ALTER TABLE harvest_record_error DROP COLUMN key;
ALTER TABLE harvest_job_outcome DROP COLUMN replay_at, DROP COLUMN validated;
