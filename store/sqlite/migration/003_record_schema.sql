-- +goose Up
-- The schema a record was validated against (kept in step with store/postgres).
ALTER TABLE harvest_record ADD COLUMN schema_type TEXT;

-- +goose Down
ALTER TABLE harvest_record DROP COLUMN schema_type;
