-- +goose Up
-- Kept in step with store/postgres/migration/001_init.sql. Ids are UUID text, times are UTC
-- text in a fixed-width RFC 3339 form (so text order is time order), JSON is text.
CREATE TABLE organization (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);

CREATE TABLE harvest_source (
    id                     TEXT PRIMARY KEY,
    organization_id        TEXT REFERENCES organization (id) ON DELETE CASCADE,
    name                   TEXT NOT NULL,
    url                    TEXT NOT NULL UNIQUE,
    source_type            TEXT NOT NULL CHECK (source_type IN ('document', 'waf', 'waf-collection', 'rdf', 'ckan', 'socrata', 'arcgis', 'opendatasoft')),
    schema_type            TEXT NOT NULL,
    frequency              TEXT NOT NULL DEFAULT 'manual' CHECK (frequency IN ('manual', 'daily', 'weekly', 'biweekly', 'monthly')),
    notification_emails    TEXT NOT NULL DEFAULT '[]',
    notification_frequency TEXT NOT NULL DEFAULT 'on_error' CHECK (notification_frequency IN ('on_error', 'always', 'on_error_or_update')),
    created_at             TEXT NOT NULL,
    updated_at             TEXT NOT NULL
);

CREATE TABLE harvest_job (
    id                TEXT PRIMARY KEY,
    harvest_source_id TEXT NOT NULL REFERENCES harvest_source (id) ON DELETE CASCADE,
    job_type          TEXT NOT NULL CHECK (job_type IN ('harvest', 'force_harvest', 'validate', 'clear')),
    status            TEXT NOT NULL CHECK (status IN ('new', 'in_progress', 'complete', 'error')),
    date_created      TEXT NOT NULL,
    date_finished     TEXT,
    heartbeat_at      TEXT,
    records_total     INTEGER NOT NULL DEFAULT 0,
    records_added     INTEGER NOT NULL DEFAULT 0,
    records_updated   INTEGER NOT NULL DEFAULT 0,
    records_deleted   INTEGER NOT NULL DEFAULT 0,
    records_unchanged INTEGER NOT NULL DEFAULT 0,
    records_errored   INTEGER NOT NULL DEFAULT 0,
    records_validated INTEGER NOT NULL DEFAULT 0,
    records_warned    INTEGER NOT NULL DEFAULT 0,
    records_settled   INTEGER NOT NULL DEFAULT 0,
    records_expected  INTEGER
);
CREATE UNIQUE INDEX harvest_job_one_in_progress ON harvest_job (harvest_source_id) WHERE status = 'in_progress';
CREATE INDEX harvest_job_source ON harvest_job (harvest_source_id, date_created DESC);

CREATE TABLE harvest_record (
    id                TEXT PRIMARY KEY,
    harvest_job_id    TEXT NOT NULL REFERENCES harvest_job (id) ON DELETE CASCADE,
    harvest_source_id TEXT NOT NULL REFERENCES harvest_source (id) ON DELETE CASCADE,
    identifier        TEXT NOT NULL,
    action            TEXT NOT NULL CHECK (action IN ('create', 'update', 'delete')),
    source_hash       TEXT,
    source_raw        TEXT,
    source_transform  TEXT,
    status            TEXT NOT NULL CHECK (status IN ('pending', 'success', 'error_validation', 'error_transform', 'error')),
    date_created      TEXT NOT NULL,
    date_finished     TEXT,
    UNIQUE (harvest_job_id, identifier)
);
CREATE INDEX harvest_record_current ON harvest_record (harvest_source_id, identifier, date_created DESC);

CREATE TABLE harvest_record_error (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    harvest_job_id    TEXT NOT NULL REFERENCES harvest_job (id) ON DELETE CASCADE,
    harvest_record_id TEXT REFERENCES harvest_record (id) ON DELETE SET NULL,
    identifier        TEXT NOT NULL DEFAULT '',
    type              TEXT NOT NULL,
    message           TEXT NOT NULL,
    severity          TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
    date_created      TEXT NOT NULL
);
CREATE INDEX harvest_record_error_job ON harvest_record_error (harvest_job_id);

CREATE TABLE harvest_job_error (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    harvest_job_id TEXT NOT NULL REFERENCES harvest_job (id) ON DELETE CASCADE,
    type           TEXT NOT NULL,
    message        TEXT NOT NULL,
    date_created   TEXT NOT NULL
);
CREATE INDEX harvest_job_error_job ON harvest_job_error (harvest_job_id);

CREATE TABLE harvest_job_identifier (
    harvest_job_id TEXT NOT NULL REFERENCES harvest_job (id) ON DELETE CASCADE,
    identifier     TEXT NOT NULL,
    PRIMARY KEY (harvest_job_id, identifier)
) WITHOUT ROWID;

CREATE TABLE harvest_job_outcome (
    harvest_job_id TEXT NOT NULL REFERENCES harvest_job (id) ON DELETE CASCADE,
    key            TEXT NOT NULL,
    outcome        TEXT NOT NULL CHECK (outcome IN ('added', 'updated', 'deleted', 'unchanged', 'errored')),
    PRIMARY KEY (harvest_job_id, key)
) WITHOUT ROWID;

CREATE TABLE dataset (
    id                  TEXT PRIMARY KEY,
    slug                TEXT NOT NULL UNIQUE,
    identifier          TEXT NOT NULL,
    dcat                TEXT NOT NULL,
    organization_id     TEXT REFERENCES organization (id),
    harvest_source_id   TEXT NOT NULL REFERENCES harvest_source (id),
    harvest_record_id   TEXT NOT NULL UNIQUE REFERENCES harvest_record (id),
    last_harvested_date TEXT NOT NULL,
    UNIQUE (harvest_source_id, identifier)
);

-- +goose Down
DROP TABLE dataset;
DROP TABLE harvest_job_outcome;
DROP TABLE harvest_job_identifier;
DROP TABLE harvest_job_error;
DROP TABLE harvest_record_error;
DROP TABLE harvest_record;
DROP TABLE harvest_job;
DROP TABLE harvest_source;
DROP TABLE organization;
