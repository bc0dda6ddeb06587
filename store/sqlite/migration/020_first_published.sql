-- +goose Up
-- Kept in step with store/postgres/migration/020_first_published.sql: when each source first
-- published a dataset with each duplicate key (never updated; it goes only with its source),
-- filled from the datasets there are now; a dataset's standing moved by another source's job;
-- a job's held count.
CREATE TABLE source_key_first_published (
    harvest_source_id    TEXT NOT NULL REFERENCES harvest_source (id) ON DELETE CASCADE,
    duplicate_match      TEXT NOT NULL CHECK (duplicate_match IN ('identifier', 'landingPage', 'downloadURL')),
    duplicate_key        TEXT NOT NULL,
    first_published_at   TEXT NOT NULL,
    first_job_id         TEXT,
    first_job_created_at TEXT NOT NULL,
    PRIMARY KEY (harvest_source_id, duplicate_match, duplicate_key)
);
-- min() picks the row whose other columns the bare columns of its group read (SQLite's rule).
WITH f AS (SELECT d.harvest_source_id AS src, d.identifier, d.landing_page, d.download_urls_sha,
        COALESCE(r.date_created, d.last_harvested_date) AS at, j.id AS job,
        COALESCE(j.date_created, r.date_created, d.last_harvested_date) AS job_at
    FROM dataset d
    LEFT JOIN harvest_record r ON r.id = (SELECT x.id FROM harvest_record x
        WHERE x.harvest_source_id = d.harvest_source_id AND x.identifier = d.identifier
            AND x.action IN ('create', 'update') AND x.status = 'success'
        ORDER BY x.date_created LIMIT 1)
    LEFT JOIN harvest_job j ON j.id = r.harvest_job_id)
INSERT INTO source_key_first_published (harvest_source_id, duplicate_match, duplicate_key, first_published_at,
    first_job_id, first_job_created_at)
SELECT src, m, v, min(at), job, job_at FROM (
    SELECT src, 'identifier' AS m, identifier AS v, at, job, job_at FROM f
    UNION ALL SELECT src, 'landingPage', landing_page, at, job, job_at FROM f WHERE landing_page IS NOT NULL
    UNION ALL SELECT src, 'downloadURL', download_urls_sha, at, job, job_at FROM f WHERE download_urls_sha IS NOT NULL)
GROUP BY src, m, v;

ALTER TABLE dataset ADD COLUMN duplicate_moved INTEGER NOT NULL DEFAULT 0;
CREATE INDEX dataset_duplicate_moved ON dataset (harvest_source_id) WHERE duplicate_moved;

ALTER TABLE harvest_job ADD COLUMN records_held INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE harvest_job DROP COLUMN records_held;
DROP INDEX dataset_duplicate_moved;
ALTER TABLE dataset DROP COLUMN duplicate_moved;
DROP TABLE source_key_first_published;
