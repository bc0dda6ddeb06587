-- +goose Up
-- Kept in step with store/sqlite/migration/022_quality_report.sql. The quality event of each
-- harvest job whose link checks settled (harvest.QualityReport, as JSON): the MQA summary of its
-- source's live datasets then. Not tied to the job row, so pruning a job's history keeps it;
-- gone with its source.
CREATE TABLE quality_report (
    job_id     uuid PRIMARY KEY,
    source_id  uuid NOT NULL REFERENCES harvest_source (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    report     jsonb NOT NULL
);
CREATE INDEX quality_report_source ON quality_report (source_id, created_at);

-- +goose Down
DROP TABLE quality_report;
