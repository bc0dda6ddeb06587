-- +goose Up
-- The schema a record was validated against: a record whose content did not change is
-- compared again when its source's schema_type did.
ALTER TABLE harvest_record ADD COLUMN schema_type text;

-- +goose Down
ALTER TABLE harvest_record DROP COLUMN schema_type;
