-- +goose Up
-- Cross-source duplicates (issue 27): a source's precedence (higher wins a duplicate pair), and
-- on each dataset the keys that find its duplicates in other sources (its DCAT-US landingPage and
-- the SHA-256 of its sorted distribution downloadURL set, NULL when it has none) and, for a held
-- dataset (not live: it lost a pair), the dataset it duplicates, by which key, and the job that
-- found the pair and when.
ALTER TABLE harvest_source ADD COLUMN precedence integer NOT NULL DEFAULT 0;
ALTER TABLE dataset
    ADD COLUMN landing_page text,
    ADD COLUMN download_urls_sha text,
    ADD COLUMN duplicate_of uuid REFERENCES dataset (id) ON DELETE SET NULL,
    ADD COLUMN duplicate_match text CHECK (duplicate_match IN ('identifier', 'landingPage', 'downloadURL')),
    ADD COLUMN duplicate_key text,
    ADD COLUMN duplicate_job_id uuid REFERENCES harvest_job (id) ON DELETE SET NULL,
    ADD COLUMN duplicate_seen_at timestamptz;
CREATE INDEX dataset_landing_page ON dataset (landing_page) WHERE landing_page IS NOT NULL;
CREATE INDEX dataset_download_urls_sha ON dataset (download_urls_sha) WHERE download_urls_sha IS NOT NULL;
CREATE INDEX dataset_duplicate_of ON dataset (duplicate_of) WHERE duplicate_of IS NOT NULL;
CREATE INDEX dataset_duplicate_job ON dataset (duplicate_job_id) WHERE duplicate_job_id IS NOT NULL;
-- A held dataset whose kept dataset was deleted (duplicate_of set NULL by the foreign key, its
-- other duplicate columns still set) until SYNC releases it (DatasetDuplicateRelease).
CREATE INDEX dataset_duplicate_orphan ON dataset (id) WHERE duplicate_of IS NULL AND duplicate_match IS NOT NULL;

-- +goose Down
DROP INDEX dataset_duplicate_orphan;
DROP INDEX dataset_duplicate_job;
DROP INDEX dataset_duplicate_of;
DROP INDEX dataset_download_urls_sha;
DROP INDEX dataset_landing_page;
ALTER TABLE dataset DROP COLUMN duplicate_seen_at, DROP COLUMN duplicate_job_id, DROP COLUMN duplicate_key,
    DROP COLUMN duplicate_match, DROP COLUMN duplicate_of, DROP COLUMN download_urls_sha, DROP COLUMN landing_page;
ALTER TABLE harvest_source DROP COLUMN precedence;
