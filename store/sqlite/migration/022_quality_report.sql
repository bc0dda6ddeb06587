-- +goose Up
-- Kept in step with store/postgres/migration/022_quality_report.sql: the quality event of each
-- harvest job whose link checks settled (harvest.QualityReport, as JSON).
CREATE TABLE quality_report (
    job_id     TEXT PRIMARY KEY,
    source_id  TEXT NOT NULL REFERENCES harvest_source (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    report     TEXT NOT NULL
);
CREATE INDEX quality_report_source ON quality_report (source_id, created_at);

-- +goose Down
DROP TABLE quality_report;
