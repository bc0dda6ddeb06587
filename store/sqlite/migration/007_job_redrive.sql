-- +goose Up
-- Kept in step with store/postgres/migration/007_job_redrive.sql.
ALTER TABLE harvest_job ADD COLUMN redrives INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE harvest_job DROP COLUMN redrives;
