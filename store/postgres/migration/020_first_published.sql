-- +goose Up
-- Cross-source duplicates, tried as a hostile publisher would (issue 34).
--
-- source_key_first_published: when each source first published a dataset with each of its
-- duplicate keys (its identifier, landingPage, downloadURL set's SHA-256), by which job. At equal
-- precedence the source that published a key first keeps the live dataset, so a source whose
-- dataset was gone for a harvest, or cleared, gets it back on its next harvest. A row is never
-- updated and outlives the dataset, its records and its job (no foreign key to them: a gap, a
-- clear and pruning keep it); it goes only with its source.
CREATE TABLE source_key_first_published (
    harvest_source_id    uuid NOT NULL REFERENCES harvest_source (id) ON DELETE CASCADE,
    duplicate_match      text NOT NULL CHECK (duplicate_match IN ('identifier', 'landingPage', 'downloadURL')),
    duplicate_key        text NOT NULL,
    first_published_at   timestamptz NOT NULL,
    first_job_id         uuid,
    first_job_created_at timestamptz NOT NULL,
    PRIMARY KEY (harvest_source_id, duplicate_match, duplicate_key)
);
-- The datasets there are now: each key from the source's oldest record of the identifier that
-- wrote a dataset (else the dataset's last harvest).
INSERT INTO source_key_first_published (harvest_source_id, duplicate_match, duplicate_key, first_published_at,
    first_job_id, first_job_created_at)
SELECT DISTINCT ON (d.harvest_source_id, k.m, k.v) d.harvest_source_id, k.m, k.v,
    COALESCE(r.date_created, d.last_harvested_date), j.id, COALESCE(j.date_created, r.date_created, d.last_harvested_date)
FROM dataset d
LEFT JOIN LATERAL (SELECT r.date_created, r.harvest_job_id FROM harvest_record r
    WHERE r.harvest_source_id = d.harvest_source_id AND r.identifier = d.identifier
        AND r.action IN ('create', 'update') AND r.status = 'success'
    ORDER BY r.date_created LIMIT 1) r ON true
LEFT JOIN harvest_job j ON j.id = r.harvest_job_id
CROSS JOIN LATERAL (VALUES ('identifier', d.identifier), ('landingPage', d.landing_page),
    ('downloadURL', d.download_urls_sha)) AS k(m, v)
WHERE k.v IS NOT NULL
ORDER BY d.harvest_source_id, k.m, k.v, 4, 6;

-- A held dataset's standing changed by a job of another source (it was held, or made live
-- again, or its pair swapped) since its own source last wrote it: its record's last
-- CrossSourceDuplicate warning may say what is no longer true, so COMPARE sends it on to SYNC
-- to be judged again (store.RecordCompare.DuplicateMoved).
ALTER TABLE dataset ADD COLUMN duplicate_moved boolean NOT NULL DEFAULT false;
CREATE INDEX dataset_duplicate_moved ON dataset (harvest_source_id) WHERE duplicate_moved;

-- How many of the job's source's datasets were held as cross-source duplicates when it ended.
ALTER TABLE harvest_job ADD COLUMN records_held integer NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE harvest_job DROP COLUMN records_held;
DROP INDEX dataset_duplicate_moved;
ALTER TABLE dataset DROP COLUMN duplicate_moved;
DROP TABLE source_key_first_published;
