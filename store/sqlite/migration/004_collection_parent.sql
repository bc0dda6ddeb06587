-- +goose Up
-- A waf-collection source's parent record: harvested first, and every child's isPartOf.
ALTER TABLE harvest_source ADD COLUMN collection_parent_url TEXT;

-- +goose Down
ALTER TABLE harvest_source DROP COLUMN collection_parent_url;
