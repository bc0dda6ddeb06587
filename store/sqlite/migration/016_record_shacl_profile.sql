-- +goose Up
-- The SHACL profile a dcat-ap record was validated with (its source's shacl_profile option,
-- "" resolved to the default profile's name; "none" when nothing was checked). NULL for other
-- schema types and for records written before it was kept. COMPARE compares a record whose
-- content did not change again when its source's profile did, as it does for schema_type.
ALTER TABLE harvest_record ADD COLUMN shacl_profile TEXT;

-- +goose Down
ALTER TABLE harvest_record DROP COLUMN shacl_profile;
