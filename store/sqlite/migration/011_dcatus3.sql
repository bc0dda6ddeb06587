-- +goose Up
-- The DCAT-US 3.0 record type of a dataset row: dataset, dataservice, catalogrecord or
-- datasetseries (every DCAT-US 1.1 and ISO record is a dataset).
ALTER TABLE dataset ADD COLUMN record_type TEXT NOT NULL DEFAULT 'dataset';

-- +goose Down
ALTER TABLE dataset DROP COLUMN record_type;
